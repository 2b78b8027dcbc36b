/**
 * What the PostgreSQL figures share: a throwaway cluster (or the reason there is none), a server
 * on a given repository, and B1 creates/s against a base URL.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppHandle } from '../../reference-server/app.ts';
import { DEMO_MERCHANTS, serverConfig } from '../../reference-server/config.ts';
import { systemClock } from '../../reference-server/domain/clock.ts';
import { startCluster, type Cluster } from '../../reference-server/test-support/pg-cluster.ts';
import type { Repository } from '../../reference-server/store/repository.ts';
import { checkClean, load, partnerBody } from './tools.ts';

/** A throwaway cluster, or why there is none (no PostgreSQL binaries on this machine). */
export async function clusterOrReason(): Promise<Cluster | string> {
  try {
    return await startCluster();
  } catch (e) {
    return (e as Error).message;
  }
}

export interface Served {
  handle: AppHandle;
  base: string;
  stop(): Promise<void>;
}

/** The reference server (demo merchants, no sweeps during the run) on `repository`, on 127.0.0.1. */
export async function serveOn(repository: Repository): Promise<Served> {
  const handle = await createApp({
    repository,
    clock: systemClock,
    config: serverConfig({ sweepIntervalMs: 3_600_000, log: () => {}, authFailureLimit: null }),
  });
  const server: Server = await new Promise((r) => {
    const s = handle.app.listen(0, '127.0.0.1', () => r(s));
  });
  return {
    handle,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await handle.close();
    },
  };
}

/** B1 creates/s of the first demo merchant on `base` over `seconds`. */
export async function createsPerSecond(base: string, seconds: number, connections: number): Promise<number> {
  const r = await load({
    url: `${base}/api/v1/public/partner/transactions`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Key': DEMO_MERCHANTS[0]!.apiKey },
    body: partnerBody,
    connections,
    duration: seconds,
  });
  checkClean('B1 creates', r);
  return r.requests.average;
}
