import { mkdtempSync, readFileSync, writeFileSync, existsSync, statSync, openSync, writeSync, closeSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  JOURNAL_ZERO_CHUNK_BYTES,
  JOURNAL_ZERO_MIN_FREE_BYTES,
  StoreCorruptError,
  journalContentBytes,
  journalPathOf,
  openFileStore,
} from './file-persistence.ts';
import { FOLD_JOURNAL_SHARE, Store } from './store.ts';
import { hash31 } from './sharded-map.ts';
import { exited, spawnChildServer } from './fixtures/spawn-child.ts';
import type { TransactionRecord } from '../domain/types.ts';
import { partnerBody } from '../test-helpers.ts';
import { writeSeededDataFile } from '../testing.ts';

const dir = () => mkdtempSync(path.join(tmpdir(), 'paylater-store-'));

/** Writes `text` where the journal's next batch goes (over the zeros written ahead): what a crash mid-append, or a corruption, leaves. */
async function writeAtJournalEnd(file: string, text: string): Promise<void> {
  const fd = openSync(journalPathOf(file), 'r+');
  try {
    writeSync(fd, text, await journalContentBytes(file));
  } finally {
    closeSync(fd);
  }
}

/** The journal's size once the zeros written ahead of it are there (they are written off the acknowledgement's path), or after 10 s. */
async function journalSizeWithZeros(file: string): Promise<number> {
  const size = (): number => statSync(journalPathOf(file)).size;
  for (let waited = 0; size() < JOURNAL_ZERO_CHUNK_BYTES.min && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
  return size();
}

function tx(id: string, merchantId = 'mer_a', vendorReference: string | null = null): TransactionRecord {
  return {
    id,
    kind: 'partner',
    merchantId,
    orderReference: 'ORD-0000000000',
    vendorReference,
    status: 'PENDING',
    totalCentimes: 129950,
    currency: 'MAD',
    customerPhone: '212612345678',
    items: [],
    createdAt: '2026-11-20T14:05:09.000Z',
    updatedAt: null,
    expiresAt: '2026-11-20T14:35:09.000Z',
    approvedAt: null,
    expiredAt: null,
    sessionId: null,
    paymentIntentId: null,
  };
}

describe('file store', () => {
  it('opens a data file written by writeSeededDataFile (testing.ts) with its transactions and indexes', async () => {
    const file = path.join(dir(), 'seeded.json');
    await writeSeededDataFile(file, [tx('s1', 'mer_a', 'SEED-1'), tx('s2', 'mer_b')]);
    const s = await openFileStore(file);
    expect(s.count('transactions')).toBe(2);
    expect(s.transactionByVendorReference('mer_a', 'SEED-1')?.id).toBe('s1');
    expect([...s.pendingTransactions('mer_b')].map((t) => t.id)).toEqual(['s2']);
    await s.close();
  });

  it('creates the data file on first start, survives a restart, keeps indexes', async () => {
    const file = path.join(dir(), 'sub', 'paylater.json');
    const a = await openFileStore(file);
    expect(existsSync(file)).toBe(true);
    await a.commit([{ c: 'transactions', k: 't1', v: tx('t1', 'mer_a', 'R-1') }]);
    // acknowledged = in the journal on disk, before any snapshot
    expect(readFileSync(journalPathOf(file), 'utf8')).toContain('"t1"');
    await a.close();
    const b = await openFileStore(file);
    expect(b.get('transactions', 't1')?.totalCentimes).toBe(129950);
    expect(b.transactionByVendorReference('mer_a', 'R-1')?.id).toBe('t1');
    expect(b.transactionByVendorReference('mer_b', 'R-1')).toBeUndefined();
    await b.close();
  });

  it('group commit: concurrent commits share journal writes (far fewer writes than commits)', async () => {
    const file = path.join(dir(), 'paylater.json');
    const s = await openFileStore(file);
    const before = s.writes;
    await Promise.all(Array.from({ length: 200 }, (_, i) => s.commit([{ c: 'transactions', k: `t${i}`, v: tx(`t${i}`) }])));
    const writes = s.writes - before;
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThan(20);
    await s.close();
    const again = await openFileStore(file);
    expect(again.count('transactions')).toBe(200);
    await again.close();
  });

  it('a torn last journal line (crash mid-append) is ignored and truncated; earlier ones replay', async () => {
    const file = path.join(dir(), 'paylater.json');
    const s = await openFileStore(file);
    await s.commit([{ c: 'transactions', k: 'ok', v: tx('ok') }]);
    // simulate a crash: no close() (journal not folded), then a half-written line where the next batch goes
    await s.abandon();
    await writeAtJournalEnd(file, '{"s":99,"b":[[{"c":"transactions","k":"torn","v":{"id":');
    const r = await openFileStore(file);
    expect(r.get('transactions', 'ok')).toBeDefined();
    expect(r.get('transactions', 'torn')).toBeUndefined();
    await r.commit([{ c: 'transactions', k: 'after', v: tx('after') }]);
    await r.close();
    const r2 = await openFileStore(file);
    expect(r2.get('transactions', 'after')).toBeDefined();
    await r2.close();
  });

  it('starts from a data file as written (read record by record) and from the same file indented (read whole) to the same records', async () => {
    const file = path.join(dir(), 'paylater.json');
    const s = await openFileStore(file);
    const written: TransactionRecord[] = [];
    for (let i = 0; i < 50; i++) {
      const t = {
        ...tx(`t-${i}`, i % 2 ? 'mer_a' : 'mer_b', `REF-\u00e9-"${i}"`),
        items: [{ id: `i-${i}`, name: 'Caf\u00e9 \\ "bleu"', reference: 'R', quantity: 1, unitPriceCentimes: 129950, categoryId: i }],
      };
      written.push(t);
      await s.commit([{ c: 'transactions', k: t.id, v: t }]);
    }
    await s.commit([{ c: 'transactions', k: 't-7', v: null }]);
    await s.close();
    const expected = written.filter((t) => t.id !== 't-7');
    const asWritten = await openFileStore(file);
    const fromWritten = [...asWritten.values('transactions')];
    await asWritten.close();
    expect(fromWritten).toHaveLength(49);
    expect(new Map(fromWritten.map((t) => [t.id, t]))).toEqual(new Map(expected.map((t) => [t.id, t])));
    writeFileSync(file, JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2));
    const indented = await openFileStore(file);
    expect(new Map([...indented.values('transactions')].map((t) => [t.id, t]))).toEqual(new Map(expected.map((t) => [t.id, t])));
    expect(indented.transactionByVendorReference('mer_b', 'REF-\u00e9-"8"')?.id).toBe('t-8');
    await indented.close();
    // A written file cut short is refused, not read up to the cut.
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, JSON.stringify(JSON.parse(text)).slice(0, -40));
    await expect(openFileStore(file)).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it('a corrupt data file gives a clear error naming the file, and nothing is overwritten', async () => {
    const file = path.join(dir(), 'paylater.json');
    writeFileSync(file, '{"format": "paylater-reference-server", "version": 1, "journalSeq": 0, "collections": {"transactions": {"x": ');
    const before = readFileSync(file);
    const err = await openFileStore(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect((err as Error).message).toContain(file);
    expect(readFileSync(file)).toEqual(before);
    writeFileSync(file, '[1,2,3]');
    await expect(openFileStore(file)).rejects.toThrow(/not a JSON object/);
    expect(readFileSync(file, 'utf8')).toBe('[1,2,3]');
  });

  it('a corrupt middle journal line stops the start with the journal named', async () => {
    const file = path.join(dir(), 'paylater.json');
    const s = await openFileStore(file);
    await s.commit([{ c: 'transactions', k: 'a', v: tx('a') }]);
    await s.abandon();
    await writeAtJournalEnd(file, 'garbage\n{"s":5,"b":[]}\n');
    await expect(openFileStore(file)).rejects.toThrow(journalPathOf(file));
  });

  it('the journal is written into zeros written ahead of it (its size does not change per append), and what a crash leaves replays', async () => {
    const d = dir();
    const file = path.join(d, 'paylater.json');
    const s = await openFileStore(file);
    await s.commit([{ c: 'transactions', k: 't0', v: tx('t0') }]);
    const size = (): number => statSync(journalPathOf(file)).size;
    const fs = statfsSync(d);
    if (fs.bavail * fs.bsize < JOURNAL_ZERO_MIN_FREE_BYTES) {
      // A nearly full disk keeps its space for data: no zeros ahead, the journal is its text.
      await s.commit([{ c: 'transactions', k: 't1', v: tx('t1') }]);
      expect(size()).toBe(await journalContentBytes(file));
      await s.close();
      return;
    }
    const zeroed = await journalSizeWithZeros(file); // written after the first append
    expect(zeroed).toBeGreaterThanOrEqual(JOURNAL_ZERO_CHUNK_BYTES.min);
    const sizes = new Set<number>();
    for (let i = 1; i <= 200; i++) {
      await s.commit([{ c: 'transactions', k: `t${i}`, v: tx(`t${i}`) }]);
      sizes.add(size());
    }
    // 200 appends into the zeros: the file's size (metadata an fdatasync must commit) never changed.
    expect([...sizes]).toEqual([zeroed]);
    const text = await journalContentBytes(file);
    expect(text).toBeGreaterThan(200 * 100);
    expect(text).toBeLessThan(zeroed);
    await s.abandon(); // a crash: the journal with its zeros
    const r = await openFileStore(file);
    expect(r.count('transactions')).toBe(201);
    expect(size()).toBe(text); // the zeros are cut at start; the next append begins at the text's end
    await r.commit([{ c: 'transactions', k: 'after', v: tx('after') }]);
    await r.abandon();
    const r2 = await openFileStore(file);
    expect(r2.count('transactions')).toBe(202);
    await r2.close();
  });

  it('a close right after a fold leaves an empty journal: the zeros written ahead of the new one go too', async () => {
    const file = path.join(dir(), 'paylater.json');
    const s = await openFileStore(file, { compactAfterBytes: 64 * 1024 });
    for (let i = 0; s.folds === 0 && i < 5_000; i++) await s.commit([{ c: 'transactions', k: `t${i}`, v: tx(`t${i}`) }]);
    await s.settle();
    // The fold opened a new journal and began writing zeros ahead of it; nothing was appended since.
    expect([await journalContentBytes(file), await journalSizeWithZeros(file)]).toEqual([0, JOURNAL_ZERO_CHUNK_BYTES.min]);
    await s.close();
    expect(statSync(journalPathOf(file)).size).toBe(0);
  });

  it('compaction folds the journal into the snapshot and the result reloads identically', async () => {
    const file = path.join(dir(), 'paylater.json');
    const s = await openFileStore(file, { compactAfterBytes: 2_000 });
    for (let i = 0; i < 30; i++) await s.commit([{ c: 'transactions', k: `t${i}`, v: tx(`t${i}`) }]);
    await s.settle();
    // folded once past the threshold (2,000 bytes, or half the data file when larger), plus one batch
    expect(await journalContentBytes(file)).toBeLessThan(Math.max(2_000, statSync(file).size * FOLD_JOURNAL_SHARE) + 1_000);
    await s.close();
    expect(statSync(journalPathOf(file)).size).toBe(0);
    const snap = JSON.parse(readFileSync(file, 'utf8')) as { collections: { transactions: Record<string, unknown> } };
    expect(Object.keys(snap.collections.transactions)).toHaveLength(30);
    const r = await openFileStore(file);
    expect(r.count('transactions')).toBe(30);
    await r.close();
  });

  it('a larger data file lets the journal grow longer before a fold: half its size, not a fixed number of bytes', async () => {
    const file = path.join(dir(), 'paylater.json');
    const seeded = await openFileStore(file);
    await seeded.commit(Array.from({ length: 400 }, (_, i) => ({ c: 'transactions' as const, k: `s${i}`, v: tx(`s${i}`) })));
    await seeded.close();
    const data = statSync(file).size;
    const s = await openFileStore(file, { compactAfterBytes: 2_000 });
    const journal = (): Promise<number> => journalContentBytes(file);
    let i = 0;
    // far past compactAfterBytes, still under half the data file: no fold
    while ((await journal()) < data * FOLD_JOURNAL_SHARE - 1_000 && i < 5_000)
      await s.commit([{ c: 'transactions', k: `t${i}`, v: tx(`t${i++}`) }]);
    await s.settle();
    expect(await journal()).toBeGreaterThan(10 * 2_000);
    expect(statSync(file).size).toBe(data);
    // past half the data file: folded (the journal starts again, the data file holds everything)
    while ((await journal()) >= data * FOLD_JOURNAL_SHARE - 1_000 && i < 5_000)
      await s.commit([{ c: 'transactions', k: `t${i}`, v: tx(`t${i++}`) }]);
    await s.settle();
    expect(await journal()).toBeLessThan(2_000);
    expect(statSync(file).size).toBeGreaterThan(data);
    await s.close();
    const r = await openFileStore(file);
    expect(r.count('transactions')).toBe(400 + i);
    await r.close();
  });

  it('memory store keeps nothing on disk and answers at once', async () => {
    const m = Store.memory();
    await m.commit([{ c: 'transactions', k: 'x', v: tx('x') }]);
    expect(m.get('transactions', 'x')).toBeDefined();
    await m.close();
  });
});

describe('the vendorReference index (keyed by a 31-bit hash of the reference)', () => {
  /** Two references with one hash: found among REF-0, REF-1, … (a birthday search: ~2^16 of them). */
  function collidingRefs(): [string, string] {
    const seen = new Map<number, string>();
    for (let i = 0; ; i++) {
      const ref = `REF-${i}`;
      const h = hash31(ref);
      const other = seen.get(h);
      if (other !== undefined) return [other, ref];
      seen.set(h, ref);
    }
  }

  it('finds each of two references that share a hash, per merchant, through updates, deletions and a restart', async () => {
    const [a, b] = collidingRefs();
    expect(hash31(a)).toBe(hash31(b));
    const file = path.join(dir(), 'data.json');
    const s = await openFileStore(file);
    await s.commit([
      { c: 'transactions', k: 'ta', v: tx('ta', 'mer_a', a) },
      { c: 'transactions', k: 'tb', v: tx('tb', 'mer_a', b) },
      { c: 'transactions', k: 'tc', v: tx('tc', 'mer_b', a) },
    ]);
    expect(s.transactionByVendorReference('mer_a', a)?.id).toBe('ta');
    expect(s.transactionByVendorReference('mer_a', b)?.id).toBe('tb');
    expect(s.transactionByVendorReference('mer_b', a)?.id).toBe('tc');
    expect(s.transactionByVendorReference('mer_b', b)).toBeUndefined();
    await s.commit([{ c: 'transactions', k: 'ta', v: { ...tx('ta', 'mer_a', a), status: 'APPROVED' } }]);
    expect(s.transactionByVendorReference('mer_a', a)?.status).toBe('APPROVED');
    expect(s.transactionByVendorReference('mer_a', b)?.id).toBe('tb');
    await s.close();
    const r = await openFileStore(file);
    expect(r.transactionByVendorReference('mer_a', a)?.id).toBe('ta');
    expect(r.transactionByVendorReference('mer_a', b)?.id).toBe('tb');
    await r.commit([{ c: 'transactions', k: 'ta', v: null }]);
    expect(r.transactionByVendorReference('mer_a', a)).toBeUndefined();
    expect(r.transactionByVendorReference('mer_a', b)?.id).toBe('tb');
    await r.commit([{ c: 'transactions', k: 'tb', v: null }]);
    expect(r.transactionByVendorReference('mer_a', b)).toBeUndefined();
    await r.commit([{ c: 'transactions', k: 'td', v: tx('td', 'mer_a', b) }]);
    expect(r.transactionByVendorReference('mer_a', b)?.id).toBe('td');
    // The hash alone finds td: the record's own reference says it is not a's.
    expect(r.transactionByVendorReference('mer_a', a)).toBeUndefined();
    await r.close();
  });
});

describe('kill -9', () => {
  it('no acknowledged write is lost when the server process is killed mid-load', async () => {
    const file = path.join(dir(), 'paylater.json');
    const { child, ...info } = await spawnChildServer(file);
    try {
      const acked: string[] = [];
      let stop = false;
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          try {
            const r = await fetch(`${info.baseUrl}/api/v1/public/partner/transactions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'X-Service-Key': info.key },
              body: JSON.stringify(partnerBody({ vendorReference: `K-${w}-${i}` })),
            });
            if (r.status === 201) acked.push(((await r.json()) as { id: string }).id);
          } catch {
            return; // connection died with the process
          }
        }
      };
      const workers = Array.from({ length: 8 }, (_, w) => worker(w));
      // Killed mid-load: once at least 20 writes are acknowledged (however slow the machine), and
      // while the 8 workers still have requests in flight.
      const deadline = Date.now() + 30_000;
      while (acked.length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGKILL');
      stop = true;
      await Promise.all(workers);
      await exited(child);
      expect(acked.length).toBeGreaterThanOrEqual(20);
      const s = await openFileStore(file);
      const missing = acked.filter((id) => !s.get('transactions', id));
      expect(missing).toEqual([]);
      await s.close();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
