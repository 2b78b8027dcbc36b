/** The LocalRepository's transactions: one at a time in this process, all-or-nothing, durable when they resolve. */
import { describe, expect, it } from 'vitest';
import { COLLECTIONS, type Change, type MerchantStateRecord, type TransactionRecord } from '../domain/types.ts';
import { LocalRepository } from './local-repository.ts';
import { packedStats } from './packed-records.ts';
import { Store, type Persistence } from './store.ts';

const state = (id: string, clockOffsetSeconds: number): MerchantStateRecord => ({ id, clockOffsetSeconds, endpointEnabled: true });

describe('LocalRepository transactions', () => {
  it("serialize: a concurrent second transaction sees the first one's write", async () => {
    const repo = new LocalRepository(Store.memory());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = repo.transaction(async (tx) => {
      const s = (await tx.lock('merchantState', 'm1')) ?? state('m1', 0);
      await gate; // the second transaction is started meanwhile
      tx.write([{ c: 'merchantState', k: 'm1', v: { ...s, clockOffsetSeconds: s.clockOffsetSeconds + 1 } }]);
      return s.clockOffsetSeconds;
    });
    const second = repo.transaction(async (tx) => {
      const s = (await tx.lock('merchantState', 'm1')) ?? state('m1', 0);
      tx.write([{ c: 'merchantState', k: 'm1', v: { ...s, clockOffsetSeconds: s.clockOffsetSeconds + 1 } }]);
      return s.clockOffsetSeconds;
    });
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await Promise.all([first, second])).toEqual([0, 1]);
    expect((await repo.get('merchantState', 'm1'))?.clockOffsetSeconds).toBe(2);
    await repo.close();
  });

  it('write nothing when the work throws, and the next transaction runs', async () => {
    const repo = new LocalRepository(Store.memory());
    const notices: string[] = [];
    repo.subscribe((n) => notices.push(n.id));
    await expect(
      repo.transaction(async (tx) => {
        tx.write([{ c: 'merchantState', k: 'm1', v: state('m1', 5) }]);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await repo.get('merchantState', 'm1')).toBeUndefined();
    expect(await repo.count('merchantState')).toBe(0);
    expect(notices).toEqual([]);
    await repo.transaction(async (tx) => tx.write([{ c: 'merchantState', k: 'm2', v: state('m2', 1) }]));
    expect((await repo.get('merchantState', 'm2'))?.clockOffsetSeconds).toBe(1);
    expect(notices).toEqual(['m2']);
    await repo.close();
  });

  it('count windows from the first request of a key, and forget them by prefix', async () => {
    const repo = new LocalRepository(Store.memory());
    expect(await repo.countInWindow('rate:a:', 1000, 100)).toEqual({ startMs: 1000, count: 1 });
    expect(await repo.countInWindow('rate:a:', 1099, 100)).toEqual({ startMs: 1000, count: 2 });
    expect(await repo.countInWindow('rate:a:', 1100, 100)).toEqual({ startMs: 1100, count: 1 });
    await repo.countInWindow('rate:b:', 1100, 100);
    await repo.resetWindows('rate:a:');
    expect(await repo.countInWindow('rate:a:', 1101, 100)).toEqual({ startMs: 1101, count: 1 });
    expect(await repo.countInWindow('rate:b:', 1101, 100)).toEqual({ startMs: 1100, count: 2 });
    // A peek reads the running window without counting, and sees none once it ended.
    expect(await repo.peekWindow('rate:b:', 1150, 100)).toEqual({ startMs: 1100, count: 2 });
    expect(await repo.peekWindow('rate:b:', 1150, 100)).toEqual({ startMs: 1100, count: 2 });
    expect(await repo.peekWindow('rate:b:', 1200, 100)).toBeNull();
    expect(await repo.peekWindow('rate:c:', 1150, 100)).toBeNull();
    await repo.close();
  });

  it('keep a bounded number of windows: a flood of distinct keys drops finished windows first', async () => {
    const repo = new LocalRepository(Store.memory());
    await repo.countInWindow('long', 0, 10_000_000);
    for (let i = 0; i < 100_010; i++) await repo.countInWindow(`authfail:10.0.${i}`, i, 1);
    // Every short window had ended when the map was full, so they went and the running one stayed.
    expect(await repo.peekWindow('long', 100_010, 10_000_000)).toEqual({ startMs: 0, count: 1 });
    expect(await repo.peekWindow('authfail:10.0.100009', 100_009, 1)).toEqual({ startMs: 100_009, count: 1 });
    // The first short windows were forgotten (read at a time inside them, they are gone).
    expect(await repo.peekWindow('authfail:10.0.0', 0, 1)).toBeNull();
    await repo.close();
  });

  it('answer a read of a durable record while a write elsewhere waits for the disk; a read of the record in flight waits for it', async () => {
    // A journal whose writes are held until released, or failed: a stalled fsync.
    const held: Array<{ go: () => void; fail: (e: Error) => void }> = [];
    const persistence: Persistence = {
      append: () => new Promise<void>((go, fail) => held.push({ go, fail })),
      journalBytes: () => 0,
      dataBytes: () => 0,
      compact: async () => {},
      foldInBackground: async () => ({ done: Promise.resolve() }),
      close: async () => {},
      abandon: async () => {},
    };
    const repo = new LocalRepository(
      Store.fromPersistence(Object.fromEntries(COLLECTIONS.map((c) => [c, new Map()])) as never, 0, persistence, Infinity, {
        retryAfterSeconds: 1,
      }),
    );
    const settledWithin = async (p: Promise<unknown>, ms = 50): Promise<boolean> =>
      Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

    const first = repo.transaction(async (tx) => tx.write([{ c: 'merchantState', k: 'm1', v: state('m1', 1) }]));
    await new Promise((r) => setTimeout(r, 5));
    held.shift()!.go();
    await first;
    // m2 is written and its write stalls; m1 is on disk
    const second = repo.transaction(async (tx) => tx.write([{ c: 'merchantState', k: 'm2', v: state('m2', 2) }]));
    await new Promise((r) => setTimeout(r, 5));
    expect(held).toHaveLength(1);
    expect(await settledWithin(repo.get('merchantState', 'm1'))).toBe(true);
    const inFlight = repo.get('merchantState', 'm2');
    const missing = repo.get('merchantState', 'm3'); // never written: not held back either
    expect(await settledWithin(missing)).toBe(true);
    expect(await settledWithin(inFlight)).toBe(false);
    expect(await settledWithin(second)).toBe(false);
    held.shift()!.go();
    expect((await inFlight)?.clockOffsetSeconds).toBe(2);
    await second;

    // a failed write: the reader of its record is refused, the reader of another record is not
    const third = repo.transaction(async (tx) => tx.write([{ c: 'merchantState', k: 'm1', v: state('m1', 3) }]));
    await new Promise((r) => setTimeout(r, 5));
    const ofFailed = repo.get('merchantState', 'm1');
    expect((await repo.get('merchantState', 'm2'))?.clockOffsetSeconds).toBe(2);
    held.shift()!.fail(new Error('ENOSPC'));
    await expect(third).rejects.toThrow(/ENOSPC|unavailable/i);
    await expect(ofFailed).rejects.toThrow(/ENOSPC|unavailable/i);
    expect((await repo.get('merchantState', 'm1'))?.clockOffsetSeconds).toBe(1);
  });
});

describe('LocalRepository lists over a large store', () => {
  it('pages, counts and the credit-limit set decode only the records they return, and stay exact through deletions', async () => {
    const repo = new LocalRepository(Store.memory());
    const n = 6000;
    const at = (i: number) => new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 3) * 1000).toISOString(); // three per second: ties broken by id
    const changes: Change[] = [];
    for (let i = 0; i < n; i++) {
      const id = `t-${String((i * 7919) % n).padStart(5, '0')}`;
      const merchantId = i % 2 ? 'mer_a' : 'mer_b';
      const status = i % 10 === 0 ? 'PENDING' : i % 10 === 1 ? 'APPROVED' : 'EXPIRED';
      changes.push({ c: 'transactions', k: id, v: { ...txRecord(id, merchantId, at(i)), status } });
      changes.push({
        c: 'sms',
        k: `s-${i}`,
        v: { id: `s-${i}`, merchantId, to: '212612345678', body: 'b', transactionId: id, sentAt: at(i) },
      });
    }
    for (let i = 0; i < n; i += 500) await repo.transaction(async (tx) => tx.write(changes.slice(i * 2, (i + 500) * 2)));
    const expected = changes
      .filter((c): c is Extract<Change, { c: 'transactions' }> => c.c === 'transactions' && c.v!.merchantId === 'mer_a')
      .map((c) => c.v!)
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : -1));

    const decodes = async <T>(read: () => Promise<T>) => {
      const before = packedStats.decodes;
      const value = await read();
      return { value, decoded: packedStats.decodes - before };
    };
    const first = await decodes(() => repo.transactionsPage('mer_a', 25, null));
    expect(first.value.items.map((t) => t.id)).toEqual(expected.slice(0, 25).map((t) => t.id));
    expect(first.decoded).toBe(25);
    const second = await decodes(() => repo.transactionsPage('mer_a', 25, first.value.next));
    expect(second.value.items.map((t) => t.id)).toEqual(expected.slice(25, 50).map((t) => t.id));
    expect(second.decoded).toBe(26); // the page and the cursor's record
    expect(await decodes(() => repo.count('transactions', 'mer_a'))).toEqual({ value: n / 2, decoded: 0 });
    const open = await decodes(() => repo.openTransactions('mer_a'));
    expect(open.value.map((t) => t.id).sort()).toEqual(
      expected
        .filter((t) => t.status === 'PENDING' || t.status === 'APPROVED')
        .map((t) => t.id)
        .sort(),
    );
    expect(open.decoded).toBe(open.value.length);
    const sms = await decodes(() => repo.smsPage('mer_a', 10, 's-9'));
    expect(sms.value.items.map((s) => s.id)).toEqual(['s-11', 's-13', 's-15', 's-17', 's-19', 's-21', 's-23', 's-25', 's-27', 's-29']);
    expect(sms.decoded).toBe(10);
    expect(await decodes(() => repo.count('sms', 'mer_a'))).toEqual({ value: n / 2, decoded: 0 });

    // A reset of one merchant: its lists and counts are empty at once, the other's untouched.
    await repo.transaction(async (tx) => tx.deleteMerchantData('mer_a', ['transactions', 'sms']));
    expect(await repo.transactionsPage('mer_a', 10, null)).toEqual({ items: [], next: null });
    expect(await repo.count('transactions', 'mer_a')).toBe(0);
    expect(await repo.smsPage('mer_a', 10, null)).toEqual({ items: [], next: null });
    expect(await repo.openTransactions('mer_a')).toEqual([]);
    expect(await repo.count('transactions', 'mer_b')).toBe(n / 2);
    expect((await repo.smsPage('mer_b', 2, null)).items.map((s) => s.id)).toEqual(['s-0', 's-2']);
    await repo.close();
  });
});

function txRecord(id: string, merchantId: string, createdAt: string): TransactionRecord {
  return {
    id,
    kind: 'partner',
    merchantId,
    orderReference: 'ORD-0000000000',
    vendorReference: null,
    status: 'PENDING',
    totalCentimes: 129950,
    currency: 'MAD',
    customerPhone: '212612345678',
    items: [],
    createdAt,
    updatedAt: null,
    expiresAt: createdAt,
    approvedAt: null,
    expiredAt: null,
    sessionId: null,
    paymentIntentId: null,
  };
}
