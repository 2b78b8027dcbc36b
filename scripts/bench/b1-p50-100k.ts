/**
 * Figure: B1 create p50 latency with 100,000 stored transactions ÷ with none, both servers on the
 * durable file store (every answer after the fsync of its journal group; target ≤ 2.0).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { checkClean, fmt, load, median, partnerBody, type Figure } from './tools.ts';

type StoreChange = Parameters<TestServer['handle']['core']['store']['commit']>[0][number];

const STORED = 100_000;

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
    const changes: StoreChange[] = [];
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
          items: [{ id: `10000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPriceCentimes: 129950, categoryId: 42 }],
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
    await s.handle.core.store.commit(changes);
  } finally {
    await s.close();
  }
}

export const b1P50With100k: Figure = {
  id: 'b1-p50-100k',
  title: 'B1 create p50 latency, 100,000 stored ÷ none (durable file store)',
  target: '≤ 2.0',
  pass: (r) => r <= 2.0,
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-'));
    const servers: TestServer[] = [];
    try {
      const bigFile = path.join(dir, 'big.json');
      const t0 = Date.now();
      await seedDataFile(bigFile, STORED);
      ctx.log(`  seeded ${fmt(STORED)} transactions in ${Date.now() - t0} ms`);
      const empty = await startTestServer({ dataFile: path.join(dir, 'empty.json'), webhookDispatcherFactory: null, sweepIntervalMs: 3_600_000 });
      servers.push(empty);
      const big = await startTestServer({ dataFile: bigFile, webhookDispatcherFactory: null, sweepIntervalMs: 3_600_000 });
      servers.push(big);
      const opts = (s: TestServer) => ({
        url: `${s.baseUrl}/api/v1/public/partner/transactions`,
        method: 'POST' as const,
        headers: { 'content-type': 'application/json', 'X-Service-Key': s.merchants[0]!.apiKey },
        body: partnerBody,
        connections: ctx.connections,
      });
      await load({ ...opts(empty), duration: 1 });
      await load({ ...opts(big), duration: 1 });
      const pe: number[] = [];
      const pb: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const e = await load({ ...opts(empty), duration: ctx.durationSeconds });
        checkClean('B1 (none stored)', e);
        const g = await load({ ...opts(big), duration: ctx.durationSeconds });
        checkClean(`B1 (${fmt(STORED)} stored)`, g);
        pe.push(e.latency.p50);
        pb.push(g.latency.p50);
      }
      const stored = big.handle.core.store.count('transactions');
      if (stored < STORED) throw new Error(`seeded store holds ${stored} transactions`);
      return {
        ratio: median(pb) / median(pe),
        detail: `p50 ${median(pb)} ms with ${fmt(stored)} stored vs ${median(pe)} ms with none (medians of ${ctx.rounds} alternating rounds: ${pb.join('/')} vs ${pe.join('/')} ms); every answer after the fsync of its journal group`,
      };
    } finally {
      for (const s of servers) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
