/**
 * Folding the journal into the data file never blocks the event loop for long: while 20,000
 * transactions are written to a file store that folds every 2 MiB of journal, the fold holds
 * the event loop only for its few file steps (each at most ~20 ms of this thread's CPU, and
 * under 20 ms all together: CPU time, not wall time, so a busy machine does not make the test
 * flaky); the merge runs in a worker thread and its data file is exactly memory. The
 * 200,000-record figure is `npm run bench -- store-200k-latency`.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../domain/types.ts';
import { foldStats, foldingJournalPathOf, journalPathOf, openFileStore, RELEASE_STEP_BYTES } from './file-persistence.ts';
import { journalText } from './fold-worker.ts';
import type { StoreImage } from './store.ts';

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
  it('folds a store whose data file is still small but whose journal is not in the worker: a first fold too', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-fold-'));
    const file = path.join(dir, 'data.json');
    // No data file yet: the first fold takes everything from the journal (2 MiB, ~2,500 records).
    const store = await openFileStore(file, { compactAfterBytes: 2 * 1024 * 1024 });
    for (let i = 0; store.folds === 0; i += 100)
      await Promise.all(Array.from({ length: 100 }, (_, j) => store.commit([{ c: 'transactions', k: tx(i + j).id, v: tx(i + j) }])));
    await store.settle();
    expect(foldStats.inWorker).toBe(true);
    expect(foldStats.merge).not.toBe('memory');
    expect(foldStats.totalCpuMs).toBeLessThan(20);
    const n = store.count('transactions');
    await store.close();
    const reopened = await openFileStore(file);
    expect(reopened.count('transactions')).toBe(n);
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
  });

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
    // The last fold wrote all 20,000 records while holding the event loop in steps of at most
    // ~20 ms of CPU each, and little CPU of this thread in all: the merge runs in a worker (on
    // the event loop, serialising 20,000 records takes about 60-260 ms of its CPU here).
    expect(foldStats.slices).toBeGreaterThan(1);
    expect(foldStats.longestSliceCpuMs).toBeLessThan(20);
    expect(foldStats.totalCpuMs).toBeLessThan(20);
    expect(foldStats.inWorker).toBe(true);
    // The data file it replaced and the journal moved aside were freed a few MiB at a
    // time, never at once (a large free at once holds back the next fsyncs on ext4 with discard).
    expect(foldStats.releaseSteps).toBeGreaterThanOrEqual(2);
    expect(foldStats.largestRelease).toBeGreaterThan(0);
    expect(foldStats.largestRelease).toBeLessThanOrEqual(RELEASE_STEP_BYTES);
    // Wall-clock delay includes waiting for a core on a shared machine: bounded loosely.
    expect(maxMs).toBeLessThan(1000);
  });

  it('writes the data file a fold makes from the data file and the journal, off the event loop: it equals memory, updates and deletions included', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-fold-merge-'));
    const file = path.join(dir, 'data.json');
    const store = await openFileStore(file, { compactAfterBytes: 64 * 1024, foldInWorkerAboveBytes: 0 });
    const n = 3000;
    for (let i = 0; i < n; i += 100)
      await Promise.all(Array.from({ length: 100 }, (_, j) => store.commit([{ c: 'transactions', k: tx(i + j).id, v: tx(i + j) }])));
    // Updates, deletions and other collections, across several folds.
    for (let i = 0; i < n; i += 7) {
      const t = tx(i);
      await store.commit(
        i % 2 === 0
          ? [{ c: 'transactions', k: t.id, v: { ...t, status: 'CANCELED', vendorReference: `V-${i}-é"\\` } }]
          : [
              { c: 'transactions', k: t.id, v: null },
              { c: 'merchantState', k: `m-${i}`, v: { id: `m-${i}`, clockOffsetSeconds: i, endpointEnabled: true } },
            ],
      );
    }
    await store.settle();
    const written = JSON.parse(readFileSync(file, 'utf8')) as StoreImage;
    const journal = journalText(readFileSync(journalPathOf(file)))
      .split('\n')
      .filter(Boolean);
    // Replaying what the journal holds after the data file gives memory exactly.
    for (const line of journal) {
      const batch = JSON.parse(line) as { s: number; b: Array<Array<{ c: keyof StoreImage['collections']; k: string; v: unknown }>> };
      if (batch.s <= written.journalSeq) continue;
      for (const ch of batch.b.flat()) {
        const col = written.collections[ch.c] as Record<string, unknown>;
        if (ch.v === null) delete col[ch.k];
        else col[ch.k] = ch.v;
      }
    }
    expect(written.journalSeq).toBeGreaterThan(0);
    expect([foldStats.inWorker, foldStats.merge]).toEqual([true, 'bytes']);
    expect(written.collections).toEqual(store.image().collections);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('merges a data file in another layout (edited by hand: indented) by parsing it, and loses nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-fold-parsed-'));
    const file = path.join(dir, 'data.json');
    const seeded = await openFileStore(file);
    for (let i = 0; i < 50; i++) await seeded.commit([{ c: 'transactions', k: tx(i).id, v: tx(i) }]);
    await seeded.close();
    writeFileSync(file, JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2));
    const store = await openFileStore(file, { compactAfterBytes: 8 * 1024, foldInWorkerAboveBytes: 0 });
    // commits until the journal passes half the (indented) data file and one fold starts; that
    // fold merges the indented file. (A later fold would merge the file it wrote, in this server's
    // layout, by bytes: so stop at the first.)
    let n = 50;
    for (; store.folds === 0 && n < 2000; n++) await store.commit([{ c: 'transactions', k: tx(n).id, v: tx(n) }]);
    await store.settle();
    expect([store.folds, foldStats.merge]).toEqual([1, 'parsed']);
    await store.commit([{ c: 'transactions', k: tx(3).id, v: null }]);
    await store.settle();
    await store.abandon(); // what a crash leaves: the folded data file and the journal after it
    const reopened = await openFileStore(file);
    expect(reopened.count('transactions')).toBe(n - 1);
    expect(reopened.get('transactions', tx(3).id)).toBeUndefined();
    expect(reopened.get('transactions', tx(n - 1).id)).toEqual(tx(n - 1));
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
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
