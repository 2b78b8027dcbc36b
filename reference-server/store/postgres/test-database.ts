/**
 * The PostgreSQL store under this package's API tests: with `PAYLATER_TEST_STORE=postgres`,
 * every test server gets a fresh database of one throwaway cluster per test file (or of
 * `PAYLATER_TEST_DATABASE_URL`'s server), so the same tests run on the memory store and on
 * PostgreSQL.
 */
import { afterAll } from 'vitest';
import { startCluster, type Cluster } from './cluster.ts';

/** True when the API tests run on PostgreSQL. */
export const onPostgres = process.env.PAYLATER_TEST_STORE === 'postgres';

let cluster: Promise<Cluster> | null = null;
if (onPostgres)
  afterAll(async () => {
    await (await cluster)?.stop();
  });

/** A URL of a fresh, empty database of the file's cluster (started on first use). */
export async function freshTestDatabase(): Promise<string> {
  cluster ??= startCluster();
  return (await cluster).createDatabase();
}
