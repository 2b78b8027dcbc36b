/**
 * Folding the journal into the data file never blocks the event loop for long: while 20,000
 * transactions are written to a file store that folds every 2 MiB of journal, the fold runs in
 * slices, each taking at most ~20 ms of this thread's CPU (CPU time, not wall time, so a busy
 * machine does not make the test flaky), and the event loop's delay stays bounded (the
 * 200,000-record figure is `npm run bench -- store-200k-latency`).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../domain/types.ts';
import { foldStats, foldingJournalPathOf, journalPathOf, openFileStore } from './file-persistence.ts';
import { Store, type FoldRecords, type Persistence, type StoreImage } from './store.ts';

function tx(i: number): TransactionRecord {
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return {
    id,
    kind: 'partner',
    merchantId: 'mer_a',
    orderReference: `ORD-${String(i).padStart(10, '0')}`,
    vendorReference: `V-${i}`,
    status: 'PENDING',
    totalCentimes: 129950,
    currency: 'MAD',
    customerPhone: '212612345678',
    items: [{ id: `${id}-1`, name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPriceCentimes: 129950, categoryId: 42 }],
    createdAt: '2026-11-20T14:05:09.000Z',
    updatedAt: null,
    expiresAt: '2026-11-20T14:35:09.000Z',
    approvedAt: null,
    expiredAt: null,
    canceledAt: null,
    completedAt: null,
    sessionId: null,
    paymentIntentId: null,
  } as unknown as TransactionRecord;
}

describe('folding without stalls', () => {
  it('keeps the event loop free (max delay bounded) while a 20,000-record store folds, and loses nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-fold-'));
    const file = path.join(dir, 'data.json');
    const store = await openFileStore(file, { compactAfterBytes: 2 * 1024 * 1024 });
    const n = 20_000;
    // Fill most of the store first, then measure while the last writes fold the whole of it.
    for (let i = 0; i < n - 4000; i += 200)
      await Promise.all(Array.from({ length: 200 }, (_, j) => store.commit([{ c: 'transactions', k: tx(i + j).id, v: tx(i + j) }])));
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    for (let i = n - 4000; i < n; i += 16)
      await Promise.all(Array.from({ length: 16 }, (_, j) => store.commit([{ c: 'transactions', k: tx(i + j).id, v: tx(i + j) }])));
    await store.settle();
    h.disable();
    const maxMs = h.max / 1e6;
    await store.close();
    const reopened = await openFileStore(file);
    expect(reopened.count('transactions')).toBe(n);
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
    // The last fold wrote all 20,000 records, in slices of at most ~20 ms of CPU each (in one
    // piece it blocks for about 260 ms here).
    expect(foldStats.slices).toBeGreaterThan(1);
    expect(foldStats.longestSliceCpuMs).toBeLessThan(20);
    // Wall-clock delay includes waiting for a core on a shared machine: bounded loosely.
    expect(maxMs).toBeLessThan(1000);
  });

  it('copies 200,000 records for a fold in a few ms of the event loop (flat arrays, no pair per record), copying every record', async () => {
    const n = 200_000;
    const transactions: Record<string, TransactionRecord> = {};
    for (let i = 0; i < n; i++) transactions[tx(i).id] = tx(i);
    const collections: StoreImage['collections'] = {
      transactions,
      sessions: {},
      paymentIntents: {},
      sms: {},
      outbox: {},
      merchantState: {},
    };
    const seen: { records: FoldRecords | null } = { records: null };
    const persistence: Persistence = {
      append: async () => {},
      journalBytes: () => 1,
      compact: async () => {},
      foldInBackground: async (_seq, records) => {
        seen.records = records;
        return { done: Promise.resolve() };
      },
      close: async () => {},
      abandon: async () => {},
    };
    const store = Store.fromPersistence(collections, 0, persistence, 0);
    await store.commit([{ c: 'transactions', k: tx(n).id, v: tx(n) }]);
    await store.settle();
    const txs = seen.records?.find((r) => r.name === 'transactions');
    expect(txs?.keys.length).toBe(n + 1);
    expect(txs?.values[n]).toEqual(tx(n));
    // CPU time of this thread: a copy as [key, record] pairs takes about 40 ms here.
    expect(store.lastFoldCopyCpuMs).toBeLessThan(15);
  });

  it('a crash while a background fold runs loses nothing: the journal moved aside is replayed before the current one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-fold-crash-'));
    const copy = mkdtempSync(path.join(tmpdir(), 'paylater-fold-crash-copy-'));
    const file = path.join(dir, 'data.json');
    const store = await openFileStore(file, { compactAfterBytes: 256 * 1024 });
    const acked: string[] = [];
    let caught = false;
    for (let i = 0; i < 20_000 && !caught; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          store.commit([{ c: 'transactions', k: tx(i + j).id, v: tx(i + j) }]).then(() => acked.push(tx(i + j).id)),
        ),
      );
      if (existsSync(foldingJournalPathOf(file))) {
        // What a kill -9 at this instant leaves on disk: the data file, both journals.
        for (const f of [file, journalPathOf(file), foldingJournalPathOf(file)])
          if (existsSync(f)) copyFileSync(f, path.join(copy, path.basename(f)));
        caught = true;
      }
    }
    expect(caught).toBe(true);
    await store.close();
    const reopened = await openFileStore(path.join(copy, 'data.json'));
    expect(acked.filter((id) => !reopened.get('transactions', id))).toEqual([]);
    await reopened.close();
    expect(existsSync(foldingJournalPathOf(path.join(copy, 'data.json')))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  });
});
