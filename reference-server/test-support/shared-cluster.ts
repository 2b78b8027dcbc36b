/**
 * vitest's global setup (vitest.config.ts): one PostgreSQL cluster for the whole run instead of
 * one per test file. It only names a folder (SHARED_CLUSTER_ENV, inherited by the test workers);
 * the first file that calls `startCluster()` starts the cluster there (pg-cluster.ts), so a run
 * with no PostgreSQL test starts none. The teardown stops it. With `PAYLATER_TEST_DATABASE_URL`
 * set, that server is used instead and nothing is started.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SHARED_CLUSTER_ENV, stopSharedCluster } from './pg-cluster.ts';

export default function setup(): (() => Promise<void>) | undefined {
  if (process.env.PAYLATER_TEST_DATABASE_URL || process.env[SHARED_CLUSTER_ENV]) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'paylater-shared-pg-'));
  process.env[SHARED_CLUSTER_ENV] = dir;
  return async () => {
    delete process.env[SHARED_CLUSTER_ENV];
    await stopSharedCluster(dir);
  };
}
