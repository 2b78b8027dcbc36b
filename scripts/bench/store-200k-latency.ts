/**
 * Figure: the worst and p99 latency of B1 creates (16 connections) and of B2 reads beside them,
 * on the durable file store holding 200,000 transactions, against the same load on an empty
 * store; the store folds its journal every 4 MiB during the run, so folds are inside the
 * measurement. Also the resident memory per stored transaction. The ratio is the worst
 * request (create or read) at 200,000 in ms (target ≤ 100 ms).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppHandle } from '../../reference-server/app.ts';
import { DEMO_MERCHANTS, serverConfig } from '../../reference-server/config.ts';
import { systemClock } from '../../reference-server/domain/clock.ts';
import type { Change } from '../../reference-server/domain/types.ts';
import { openFileStore } from '../../reference-server/store/file-persistence.ts';
import { LocalRepository } from '../../reference-server/store/local-repository.ts';
import { startTestServer } from '../../reference-server/testing.ts';
import { checkClean, fmt, load, partnerBody, type Figure } from './tools.ts';

const STORED = 200_000;
const CONNECTIONS = 16;
/** Journal bytes between folds during the run (small, so folds happen while it is measured). */
const FOLD_AFTER_BYTES = 4 * 1024 * 1024;

/**
 * Writes a data file holding `n` settled partner transactions of the first merchant: a server on
 * that file takes them through its store (one commit) and folds them into the file on close.
 */
export async function seedDataFile(file: string, n: number): Promise<void> {
  const s = await startTestServer({ dataFile: file, webhookDispatcherFactory: null, sweepIntervalMs: 3_600_000 });
  try {
    const merchantId = s.merchants[0]!.id;
    const now = Date.now();
    const statuses = ['APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'] as const;
    const changes: Change[] = [];
    for (let i = 0; i < n; i++) {
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      const created = now - (n - i) * 60_000;
      changes.push({
        c: 'transactions',
        k: id,
        v: {
          id,
          kind: 'partner',
          merchantId,
          orderReference: `ORD-${i.toString(36).toUpperCase().padStart(10, '0')}`,
          vendorReference: `SEED-${i}`,
          status: statuses[i % statuses.length]!,
          totalCentimes: 129950,
          currency: 'MAD',
          customerPhone: '212612345678',
          items: [
            {
              id: `10000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
              name: 'Wireless headphones',
              reference: 'SKU-100',
              quantity: 1,
              unitPriceCentimes: 129950,
              categoryId: 42,
            },
          ],
          createdAt: new Date(created).toISOString(),
          updatedAt: new Date(created + 1000).toISOString(),
          expiresAt: new Date(created + 1_800_000).toISOString(),
          approvedAt: null,
          expiredAt: null,
          sessionId: null,
          paymentIntentId: null,
        },
      });
    }
    await s.handle.core.repo.transaction(async (tx) => tx.write(changes));
  } finally {
    await s.close();
  }
}

interface Served {
  handle: AppHandle;
  server: Server;
  base: string;
}

/** The server on `file`, folding every `FOLD_AFTER_BYTES` of journal. */
async function serve(file: string): Promise<Served> {
  const store = await openFileStore(file, { compactAfterBytes: FOLD_AFTER_BYTES });
  const handle = await createApp({
    repository: new LocalRepository(store),
    clock: systemClock,
    config: serverConfig({ sweepIntervalMs: 3_600_000, log: () => {}, authFailureLimit: null }),
  });
  const server: Server = await new Promise((r) => {
    const s = handle.app.listen(0, '127.0.0.1', () => r(s));
  });
  return { handle, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(s: Served): Promise<void> {
  await new Promise<void>((r) => {
    s.server.close(() => r());
    s.server.closeAllConnections();
  });
  await s.handle.close();
}

/** Creates on `CONNECTIONS` connections and reads of one transaction on 2 more, at once, for `seconds`. */
async function measure(s: Served, readId: string, seconds: number) {
  const key = DEMO_MERCHANTS[0]!.apiKey;
  const [creates, reads] = await Promise.all([
    load({
      url: `${s.base}/api/v1/public/partner/transactions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-Key': key },
      body: partnerBody,
      connections: CONNECTIONS,
      duration: seconds,
    }),
    load({
      url: `${s.base}/api/v1/public/partner/transactions/${readId}`,
      method: 'GET',
      headers: { 'X-Api-Key': key },
      connections: 2,
      duration: seconds,
    }),
  ]);
  checkClean('B1 creates', creates);
  checkClean('B2 reads', reads);
  return {
    createP99: creates.latency.p99,
    createMax: creates.latency.max,
    readP99: reads.latency.p99,
    readMax: reads.latency.max,
    creates: creates.requests.total,
  };
}

export const store200kLatency: Figure = {
  id: 'store-200k-latency',
  title: 'Worst request (create or read) with 200,000 stored, ms (file store)',
  target: '≤ 100',
  pass: (r) => r <= 100,
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-'));
    const servers: Served[] = [];
    try {
      const bigFile = path.join(dir, 'big.json');
      const emptyFile = path.join(dir, 'empty.json');
      const t0 = Date.now();
      await seedDataFile(bigFile, STORED);
      await seedDataFile(emptyFile, 1);
      ctx.log(`  seeded ${fmt(STORED)} transactions in ${Date.now() - t0} ms`);
      const readId = '00000000-0000-4000-8000-000000000000';
      const empty = await serve(emptyFile);
      servers.push(empty);
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const big = await serve(bigFile);
      servers.push(big);
      global.gc?.();
      const rssPerTx = (process.memoryUsage().rss - rssBefore) / STORED;
      const seconds = Math.max(ctx.durationSeconds, 5);
      await measure(empty, readId, 1);
      await measure(big, readId, 1);
      const e = await measure(empty, readId, seconds);
      const b = await measure(big, readId, seconds);
      const stored = await big.handle.core.repo.count('transactions');
      if (stored < STORED) throw new Error(`seeded store holds ${stored} transactions`);
      return {
        ratio: Math.max(b.createMax, b.readMax),
        detail:
          `with ${fmt(stored)} stored: create p99 ${b.createP99} ms, worst ${b.createMax} ms; read p99 ${b.readP99} ms, worst ${b.readMax} ms (${fmt(b.creates)} creates on ${CONNECTIONS} connections in ${seconds} s, a fold every ${FOLD_AFTER_BYTES / 2 ** 20} MiB of journal)\n` +
          `  with none: create p99 ${e.createP99} ms, worst ${e.createMax} ms; read p99 ${e.readP99} ms, worst ${e.readMax} ms\n` +
          `  resident memory: ${fmt(rssPerTx / 1024, 2)} KiB per stored transaction`,
      };
    } finally {
      for (const s of servers) await stop(s);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
