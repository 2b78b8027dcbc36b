/**
 * The PostgreSQL store under this package's API tests. With `PAYLATER_TEST_STORE=postgres`
 * every test server gets a fresh database of the run's throwaway cluster (pg-cluster.ts: one
 * per vitest run, or one per test file outside vitest), or of `PAYLATER_TEST_DATABASE_URL`'s
 * server; with `PAYLATER_TEST_STORE=postgres-2` it is two
 * servers (two repositories, two cores, one clock) on that database behind a round-robin
 * proxy, so every other request of a test lands on the other instance.
 */
import { afterAll } from 'vitest';
import { startTestServer, type TestServer, type TestServerOptions } from '../testing.ts';
import { startCluster, type Cluster } from './pg-cluster.ts';
import { roundRobinProxy } from './pg-instances.ts';

const mode = process.env.PAYLATER_TEST_STORE;
/** True when the API tests run on PostgreSQL. */
export const onPostgres = mode === 'postgres' || mode === 'postgres-2';

let cluster: Promise<Cluster> | null = null;
if (onPostgres)
  afterAll(async () => {
    await (await cluster)?.stop();
  });

/** A URL of a fresh, empty database of the cluster (started on first use). */
export async function freshTestDatabase(): Promise<string> {
  cluster ??= startCluster();
  return (await cluster).createDatabase();
}

/** The test server of `opts` on a fresh database: one, or two behind a proxy (`handle` is the first's). */
export async function startTestServerOnPostgres(opts: TestServerOptions): Promise<TestServer> {
  const databaseUrl = await freshTestDatabase();
  if (mode !== 'postgres-2') return startTestServer({ ...opts, databaseUrl });
  // The proxy is the address clients see: absolute links name it.
  const backends: string[] = [];
  const proxy = await roundRobinProxy(() => backends);
  const both = { ...opts, databaseUrl, publicUrl: opts.publicUrl ?? proxy.baseUrl };
  const first = await startTestServer(both);
  const second = await startTestServer(both);
  backends.push(first.baseUrl, second.baseUrl);
  return {
    baseUrl: proxy.baseUrl,
    merchants: first.merchants,
    handle: first.handle,
    async close() {
      await proxy.close();
      await Promise.all([first.close(), second.close()]);
    },
  };
}
