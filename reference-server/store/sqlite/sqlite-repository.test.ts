/**
 * The SQLite store's transactions (ADR-046, ADR-047): one at a time in this process, all or
 * nothing each (also inside a group commit), durable when they resolve; reads outside a
 * transaction see committed rows only; windows and lists in SQL. On a database file and in memory.
 * On a file, the group commit holds a batch while the log syncs, and SQLite's checkpoints keep the log bounded.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MerchantStateRecord, OutboxEvent, TransactionRecord } from '../../domain/types.ts';
import { openSqliteRepository, type SqliteRepository } from './sqlite-repository.ts';

const state = (id: string, clockOffsetMs: number): MerchantStateRecord => ({ id, clockOffsetMs, endpointEnabled: true });
const fileRepo = () => openSqliteRepository({ file: path.join(mkdtempSync(path.join(tmpdir(), 'paylater-sqlite-repo-')), 'paylater.db') });
const stores: Array<[string, () => Promise<SqliteRepository>]> = [
  ['in memory', () => openSqliteRepository()],
  ['on a file', fileRepo],
];

const tx = (i: number, merchantId = 'm1', over: Partial<TransactionRecord> = {}): TransactionRecord => ({
  id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
  kind: 'partner',
  merchantId,
  orderReference: `ORD-${merchantId}-${i}`,
  vendorReference: `V-${i}`,
  status: 'PENDING',
  totalCentimes: 100_000 + i,
  currency: 'MAD',
  customerPhone: '212612345678',
  items: [
    {
      id: `10000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      name: 'x',
      reference: null,
      quantity: 1,
      unitPriceCentimes: 100_000 + i,
      categoryId: null,
    },
  ],
  createdAt: new Date(Date.UTC(2026, 10, 20) + (i % 7) * 1000).toISOString(), // ties on purpose: the id breaks them
  updatedAt: null,
  expiresAt: new Date(Date.UTC(2026, 10, 20) + 1_800_000 + i).toISOString(),
  approvedAt: null,
  expiredAt: null,
  sessionId: null,
  paymentIntentId: null,
  ...over,
});

describe.each(stores)('SQLite store %s', (_, open) => {
  it("serializes: a concurrent second transaction sees the first one's write", async () => {
    const repo = await open();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const bump = (wait: boolean) =>
      repo.transaction(async (t) => {
        const s = (await t.lock('merchantState', 'm1')) ?? state('m1', 0);
        if (wait) await gate; // the second transaction is started meanwhile
        t.write([{ c: 'merchantState', k: 'm1', v: { ...s, clockOffsetMs: s.clockOffsetMs + 1 } }]);
        return s.clockOffsetMs;
      });
    const first = bump(true);
    const second = bump(false);
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await Promise.all([first, second])).toEqual([0, 1]);
    expect((await repo.get('merchantState', 'm1'))?.clockOffsetMs).toBe(2);
    await repo.close();
  });

  it('writes nothing of a transaction whose work throws or whose write the database refuses; the others of its group commit stay', async () => {
    const repo = await open();
    const notices: string[] = [];
    repo.subscribe((n) => notices.push(n.id));
    const results = await Promise.allSettled([
      repo.transaction(async (t) => t.write([{ c: 'transactions', k: tx(1).id, v: tx(1) }])),
      repo.transaction(async (t) => {
        t.write([{ c: 'merchantState', k: 'm9', v: state('m9', 5) }]);
        throw new Error('refused');
      }),
      // the same vendorReference for the same merchant: the unique index refuses it
      repo.transaction(async (t) => t.write([{ c: 'transactions', k: tx(2).id, v: tx(2, 'm1', { vendorReference: 'V-1' }) }])),
      repo.transaction(async (t) => t.write([{ c: 'transactions', k: tx(3).id, v: tx(3) }])),
      // another merchant may use it
      repo.transaction(async (t) => t.write([{ c: 'transactions', k: tx(4).id, v: tx(4, 'm2', { vendorReference: 'V-1' }) }])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(await repo.get('merchantState', 'm9')).toBeUndefined();
    expect(await repo.get('transactions', tx(2).id)).toBeUndefined();
    expect((await repo.transactionByVendorReference('m1', 'V-1'))?.id).toBe(tx(1).id);
    expect((await repo.transactionByVendorReference('m2', 'V-1'))?.id).toBe(tx(4).id);
    expect(await repo.get('transactions', tx(3).id)).toEqual(tx(3));
    expect(notices.sort()).toEqual([tx(1).id, tx(3).id, tx(4).id].sort());
    await repo.close();
  });

  it('counts windows from the first request of a key, and forgets them by prefix', async () => {
    const repo = await open();
    expect(await repo.countInWindow('rate:a:', 1000, 100)).toEqual({ startMs: 1000, count: 1 });
    expect(await repo.countInWindow('rate:a:', 1099, 100)).toEqual({ startMs: 1000, count: 2 });
    expect(await repo.peekWindow('rate:a:', 1099, 100)).toEqual({ startMs: 1000, count: 2 });
    expect(await repo.countInWindow('rate:a:', 1100, 100)).toEqual({ startMs: 1100, count: 1 });
    await repo.countInWindow('rate:b:', 1100, 100);
    await repo.resetWindows('rate:a:');
    expect(await repo.peekWindow('rate:a:', 1101, 100)).toBeNull();
    expect(await repo.countInWindow('rate:a:', 1101, 100)).toEqual({ startMs: 1101, count: 1 });
    expect(await repo.countInWindow('rate:b:', 1101, 100)).toEqual({ startMs: 1100, count: 2 });
    await repo.close();
  });

  it('pages the lists in their order, exactly through deletions; counts; claims a due event once per lease', async () => {
    const repo = await open();
    const all = Array.from({ length: 300 }, (_, i) => tx(i));
    await repo.transaction(async (t) => t.write(all.map((v) => ({ c: 'transactions' as const, k: v.id, v }))));
    const newestFirst = [...all].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    const pageAll = async () => {
      const ids: string[] = [];
      for (let cursor: string | null = null; ;) {
        const page = await repo.transactionsPage('m1', 25, cursor);
        ids.push(...page.items.map((t) => t.id));
        if ((cursor = page.next) === null) return ids;
      }
    };
    expect(await pageAll()).toEqual(newestFirst.map((t) => t.id));
    const gone = new Set(newestFirst.filter((_, i) => i % 3 === 0).map((t) => t.id));
    await repo.transaction(async (t) => t.write([...gone].map((k) => ({ c: 'transactions' as const, k, v: null }))));
    expect(await pageAll()).toEqual(newestFirst.filter((t) => !gone.has(t.id)).map((t) => t.id));
    expect(await repo.count('transactions', 'm1')).toBe(300 - gone.size);
    expect((await repo.openTransactions('m1')).length).toBe(300 - gone.size);
    expect(await repo.pendingMerchants()).toEqual(['m1']);

    const t0 = all.find((t) => !gone.has(t.id))!;
    const event: OutboxEvent = {
      id: 'evt_1',
      merchantId: 'm1',
      event: 'transaction.cancelled',
      transactionId: t0.id,
      payload: { type: 'transaction.cancelled', data: { id: t0.id, amount: 1299.5 } } as unknown as OutboxEvent['payload'],
      createdAt: t0.createdAt,
      state: 'pending',
      url: 'https://shop.example/hook',
      nextAttemptAt: t0.createdAt,
      attempts: [],
    };
    await repo.transaction(async (t) => t.write([{ c: 'outbox', k: event.id, v: event }]));
    const now = () => Date.parse(t0.createdAt) + 1000;
    expect((await repo.claimDue(now, 10, 60_000)).map((e) => e.id)).toEqual(['evt_1']);
    expect(await repo.claimDue(now, 10, 60_000)).toEqual([]); // leased
    const attempted = { ...event, attempts: [{ attempt: 1, at: t0.createdAt, status: 500, durationMs: 3.25 }] } as unknown as OutboxEvent;
    await repo.transaction(async (t) => t.write([{ c: 'outbox', k: event.id, v: attempted }])); // a recorded attempt ends the lease
    expect(await repo.claimDue(now, 10, 60_000)).toEqual([attempted]);
    await repo.close();
  });
});

describe('SQLite store on a file', () => {
  // Microtasks only: no timer fires and no sync of the log (a file system call) ends while these run.
  const ticks = async () => {
    for (let i = 0; i < 200; i++) await Promise.resolve();
  };
  it('commits concurrent transactions together (group commit) and reads outside them see committed rows only', async () => {
    const repo = await fileRepo();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const writes = Array.from({ length: 50 }, (_, i) =>
      repo.transaction(async (t) => {
        if (i === 1) await gate; // holds the queue: the first write is applied, not committed yet
        t.write([{ c: 'transactions', k: tx(i).id, v: tx(i) }]);
      }),
    );
    await ticks(); // microtasks only: the group's 10 ms timer cannot fire however slow the machine
    expect(await repo.get('transactions', tx(0).id)).toBeUndefined(); // in the open group, not committed yet
    await new Promise((r) => setTimeout(r, 50));
    expect(await repo.get('transactions', tx(0).id)).toEqual(tx(0)); // committed at most 10 ms later, though the group's next transaction waits
    release();
    await Promise.all(writes);
    expect(await repo.count('transactions')).toBe(50);
    expect(repo.commits).toBeLessThan(10);
    await repo.close();
  });

  it('holds the transactions applied while a sync of the log runs and commits them together when it ends', async () => {
    const repo = await fileRepo();
    const write = (i: number) => repo.transaction(async (t) => t.write([{ c: 'transactions', k: tx(i).id, v: tx(i) }]));
    const writes = [write(0)];
    await ticks();
    expect(repo.commits).toBe(1); // committed alone: no sync was running; its sync runs now
    for (let i = 1; i < 20; i++) {
      writes.push(write(i)); // each applied before the next starts: none waits for another
      await ticks();
    }
    expect(repo.commits).toBe(1); // all nineteen held in one open batch while that sync runs
    await Promise.all(writes);
    expect(repo.commits).toBe(2); // committed together when it ended, then synced
    expect(await repo.count('transactions')).toBe(20);
    await repo.close();
  });

  it("keeps the log bounded: SQLite's own checkpoint copies it into the file and starts it over", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'paylater-sqlite-repo-')), 'paylater.db');
    const repo = await openSqliteRepository({ file });
    try {
      const big = (i: number) => tx(i, 'm1', { items: [{ ...tx(i).items[0]!, name: 'x'.repeat(16_000) }] });
      let largest = 0;
      for (let round = 0; round < 8; round++) {
        // 256 transactions of 16 KB each at once (one group commit), 32 MiB written in all
        await Promise.all(
          Array.from({ length: 256 }, (_, j) => {
            const t = big(round * 256 + j);
            return repo.transaction(async (w) => w.write([{ c: 'transactions', k: t.id, v: t }]));
          }),
        );
        largest = Math.max(largest, statSync(`${file}-wal`).size);
      }
      expect(await repo.count('transactions')).toBe(2048);
      expect(largest).toBeLessThan(12 * 2 ** 20);
    } finally {
      await repo.close();
    }
  });
});
