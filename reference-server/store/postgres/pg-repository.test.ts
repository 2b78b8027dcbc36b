/**
 * The PostgreSQL store at the repository interface, against a real server (a throwaway
 * cluster, or PAYLATER_TEST_DATABASE_URL): records read back exactly, transactions are atomic
 * and see their own writes, and two instances (two pools) racing on one database stay exact:
 * one winner of a locked change, one create per vendorReference, exact window counts,
 * claims never shared, change notices across instances. Then an outage and start-up refusals.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  MerchantStateRecord,
  OutboxEvent,
  PaymentIntentRecord,
  SessionRecord,
  SmsRecord,
  TransactionRecord,
} from '../../domain/types.ts';
import type { ChangeNotice } from '../repository.ts';
import { StoreUnavailableError } from '../errors.ts';
import { startCluster, type Cluster } from '../../test-support/pg-cluster.ts';
import { openPgRepository, type PgRepository } from './pg-repository.ts';

let cluster: Cluster;
const opened: PgRepository[] = [];
beforeAll(async () => {
  cluster = await startCluster({ pausable: true });
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(opened.map((r) => r.close()));
  await cluster?.stop();
});

/** Two instances (two pools) on one fresh database (or on `url`'s). */
async function instances(n = 2, poolSize = 10, url?: string): Promise<PgRepository[]> {
  url ??= await cluster.createDatabase();
  const out: PgRepository[] = [];
  for (let i = 0; i < n; i++) out.push(await openPgRepository({ url, poolSize, retryAfterSeconds: 7 }));
  opened.push(...out);
  return out;
}

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function txRecord(over: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    id: randomUUID(),
    kind: 'partner',
    merchantId: 'm1',
    orderReference: `ORD-${randomUUID().slice(0, 10).toUpperCase()}`,
    vendorReference: null,
    status: 'PENDING',
    totalCentimes: 129_950,
    currency: 'MAD',
    customerPhone: '212612345678',
    items: [{ id: randomUUID(), name: 'Tapis', reference: 'T-1', quantity: 1, unitPriceCentimes: 129_950, categoryId: null }],
    createdAt: at(0),
    updatedAt: null,
    expiresAt: at(1800),
    approvedAt: null,
    expiredAt: null,
    sessionId: null,
    paymentIntentId: null,
    ...over,
  };
}

function outboxRecord(tx: TransactionRecord, over: Partial<OutboxEvent> = {}): OutboxEvent {
  return {
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    merchantId: tx.merchantId,
    event: 'transaction.cancelled',
    transactionId: tx.id,
    payload: { type: 'transaction.cancelled', data: { id: tx.id, z: 1, a: 2 } } as unknown as OutboxEvent['payload'],
    createdAt: at(10),
    state: 'pending',
    url: 'http://127.0.0.1:9/hook',
    nextAttemptAt: at(10),
    attempts: [],
    ...over,
  };
}

describe('records read back exactly', () => {
  it('every collection: put, get (same fields, same key order), delete', async () => {
    const [repo] = await instances(1);
    // Quotes, backslashes, a `$1` and non-ASCII in values: written as literals, read back as they were.
    const tx = txRecord({ vendorReference: "V-1 'q' \\ $1 ☕", scenario: { operationId: 'confirmTransaction', dueAt: at(60) } });
    tx.items[0]!.name = 'Tapis d\'Orient \\ "$2" — زربية';
    const session: SessionRecord = {
      id: `cs_test_${randomUUID().slice(0, 8)}`,
      merchantId: 'm1',
      tokenDigest: 'ab'.repeat(32),
      totalCentimes: 5000,
      currency: 'MAD',
      items: [{ id: 'i1', name: 'Thé', priceCentimes: 5000, quantity: 1 }],
      createdAt: at(0),
      expiresAt: at(900),
      testMode: true,
      paymentIntentId: null,
      transactionId: tx.id,
    };
    const intent: PaymentIntentRecord = {
      id: randomUUID(),
      sessionId: session.id,
      merchantId: 'm1',
      flow: 'popup',
      locale: 'ar',
      redirectUrl: null,
      origin: 'https://shop.example',
      createdAt: at(1),
    };
    const sms: SmsRecord = {
      id: randomUUID(),
      merchantId: 'm1',
      to: '212612345678',
      body: 'Code 1234',
      transactionId: tx.id,
      sentAt: at(2),
    };
    const attempt = { attempt: 1, at: at(11), statusCode: 500, durationMs: 12, error: null };
    const ev = outboxRecord(tx, {
      attempts: [attempt as unknown as OutboxEvent['attempts'][number]],
      state: 'retrying' as OutboxEvent['state'],
    });
    const state: MerchantStateRecord = {
      id: 'm1',
      clockOffsetMs: 3600,
      endpointEnabled: false,
      webhook: { url: 'https://hooks.example/x', secret: 'whsec_a', previousSecret: null, previousSecretExpiresAt: null },
    };
    // Written in an order that references records before they exist: references are checked at commit.
    await repo!.transaction(async (t) => {
      t.write([
        { c: 'outbox', k: ev.id, v: ev },
        { c: 'sms', k: sms.id, v: sms },
        { c: 'paymentIntents', k: intent.id, v: intent },
        { c: 'sessions', k: session.id, v: session },
        { c: 'transactions', k: tx.id, v: tx },
        { c: 'merchantState', k: 'm1', v: state },
      ]);
    });
    const pairs = [
      ['transactions', tx],
      ['sessions', session],
      ['paymentIntents', intent],
      ['sms', sms],
      ['outbox', ev],
      ['merchantState', state],
    ] as const;
    for (const [c, v] of pairs) expect(JSON.stringify(await repo!.get(c, v.id))).toBe(JSON.stringify(v));
    const bare: MerchantStateRecord = { id: 'm2', clockOffsetMs: 0, endpointEnabled: true };
    const done = { ...tx, status: 'CANCELED' as const, updatedAt: at(5) };
    delete done.scenario;
    await repo!.transaction(async (t) =>
      t.write([
        { c: 'merchantState', k: 'm2', v: bare },
        { c: 'transactions', k: tx.id, v: done },
      ]),
    );
    expect(JSON.stringify(await repo!.get('merchantState', 'm2'))).toBe(JSON.stringify(bare));
    expect(JSON.stringify(await repo!.get('transactions', tx.id))).toBe(JSON.stringify(done));
    await repo!.transaction(async (t) => t.write([{ c: 'sms', k: sms.id, v: null }]));
    expect(await repo!.get('sms', sms.id)).toBeUndefined();
    expect(await repo!.get('transactions', 'not-a-uuid')).toBeUndefined();
    expect(await repo!.get('transactions', tx.id.toUpperCase())).toBeUndefined();
  });

  it('an outbox record keeps its attempts in order as they are appended', async () => {
    const [repo] = await instances(1);
    const tx = txRecord();
    let ev = outboxRecord(tx);
    await repo!.transaction(async (t) =>
      t.write([
        { c: 'transactions', k: tx.id, v: tx },
        { c: 'outbox', k: ev.id, v: ev },
      ]),
    );
    for (let i = 1; i <= 3; i++) {
      ev = { ...ev, attempts: [...ev.attempts, { attempt: i, statusCode: 500 + i } as unknown as OutboxEvent['attempts'][number]] };
      await repo!.transaction(async (t) => {
        await t.lock('outbox', ev.id);
        t.write([{ c: 'outbox', k: ev.id, v: ev }]);
      });
    }
    expect((await repo!.get('outbox', ev.id))?.attempts).toEqual(ev.attempts);
  });
});

describe('reads', () => {
  it('indexes, lists with cursors, the event stream, due work, counts', async () => {
    const [repo] = await instances(1);
    const txs = Array.from({ length: 5 }, (_, i) =>
      txRecord({
        vendorReference: `V-${i}`,
        createdAt: at(i),
        expiresAt: at(100 - i * 10),
        status: i === 4 ? 'CANCELED' : i === 3 ? 'APPROVED' : 'PENDING',
      }),
    );
    txs[0] = { ...txs[0]!, scenario: { operationId: 'confirmTransaction', dueAt: at(30) } };
    const other = txRecord({ merchantId: 'm2', vendorReference: 'V-0' });
    const events = txs
      .slice(0, 3)
      .map((t, i) => outboxRecord(t, { createdAt: at(20) /* ties: insertion order decides */, id: `msg_${i}` }));
    await repo!.transaction(async (t) => {
      t.write(txs.map((v) => ({ c: 'transactions' as const, k: v.id, v })));
      t.write([{ c: 'transactions', k: other.id, v: other }]);
      t.write(events.map((v) => ({ c: 'outbox' as const, k: v.id, v })));
    });
    expect((await repo!.transactionByVendorReference('m1', 'V-2'))?.id).toBe(txs[2]!.id);
    expect((await repo!.transactionByVendorReference('m2', 'V-0'))?.id).toBe(other.id);
    expect(await repo!.transactionByVendorReference('m1', 'V-9')).toBeUndefined();
    expect((await repo!.openTransactions('m1')).map((t) => t.id).sort()).toEqual(
      txs
        .slice(0, 4)
        .map((t) => t.id)
        .sort(),
    );

    const p1 = await repo!.transactionsPage('m1', 2, null);
    expect(p1.items.map((t) => t.id)).toEqual([txs[4]!.id, txs[3]!.id]);
    const p2 = await repo!.transactionsPage('m1', 2, p1.next);
    expect(p2.items.map((t) => t.id)).toEqual([txs[2]!.id, txs[1]!.id]);
    const p3 = await repo!.transactionsPage('m1', 2, p2.next);
    expect(p3).toEqual({ items: [txs[0]], next: null });
    expect(await repo!.transactionsPage('m1', 2, other.id)).toEqual({ items: [], next: null });
    // Same creation time: by id, descending.
    const twins = [txRecord({ merchantId: 'm3', createdAt: at(0) }), txRecord({ merchantId: 'm3', createdAt: at(0) })];
    await repo!.transactionsPage('m3', 1, null); // nothing yet
    await repo!.transaction(async (t) => t.write(twins.map((v) => ({ c: 'transactions' as const, k: v.id, v }))));
    const byId = twins
      .map((t) => t.id)
      .sort()
      .reverse();
    expect((await repo!.transactionsPage('m3', 1, null)).items.map((t) => t.id)).toEqual([byId[0]]);
    expect((await repo!.transactionsPage('m3', 1, byId[0]!)).items.map((t) => t.id)).toEqual([byId[1]]);
    const sms = [0, 1, 2].map((i): SmsRecord => ({
      id: randomUUID(),
      merchantId: 'm1',
      to: '2126',
      body: `b${i}`,
      transactionId: txs[0]!.id,
      sentAt: at(50 - i),
    }));
    await repo!.transaction(async (t) => t.write(sms.map((v) => ({ c: 'sms' as const, k: v.id, v }))));
    const s1 = await repo!.smsPage('m1', 2, null);
    expect(s1.items.map((x) => x.body)).toEqual(['b0', 'b1']);
    expect((await repo!.smsPage('m1', 2, s1.next)).items.map((x) => x.body)).toEqual(['b2']);
    expect((await repo!.outboxPage('m1', 10, null)).items.map((e) => e.id)).toEqual(['msg_2', 'msg_1', 'msg_0']);

    expect((await repo!.outboxAfter('m1', null, 10)).map((e) => e.id)).toEqual(['msg_0', 'msg_1', 'msg_2']);
    expect((await repo!.outboxAfter('m1', 'msg_0', 1)).map((e) => e.id)).toEqual(['msg_1']);
    expect((await repo!.outboxAfter('m1', 'unknown', 10)).map((e) => e.id)).toEqual(['msg_0', 'msg_1', 'msg_2']);
    expect(await repo!.latestOutboxId('m1')).toBe('msg_2');
    expect(await repo!.latestOutboxId('m2')).toBeNull();

    // Windows ending at 100, 90, 80 s are PENDING; 70 is APPROVED, 60 CANCELED.
    expect((await repo!.dueTransactions('m1', T0 + 95_000, 10)).map((t) => t.id)).toEqual([txs[2]!.id, txs[1]!.id]);
    expect((await repo!.dueTransactions('m1', T0 + 95_000, 1)).map((t) => t.id)).toEqual([txs[2]!.id]);
    expect((await repo!.dueScenarios('m1', T0 + 29_000, 10)).length).toBe(0);
    expect((await repo!.dueScenarios('m1', T0 + 30_000, 10)).map((t) => t.id)).toEqual([txs[0].id]);
    expect((await repo!.pendingMerchants()).sort()).toEqual(['m1', 'm2', 'm3']);
    expect(await repo!.count('transactions')).toBe(8);
    expect(await repo!.count('transactions', 'm1')).toBe(5);
    expect(await repo!.count('outbox', 'm2')).toBe(0);
    expect(await repo!.paymentIntentCount('cs_none')).toBe(0);
  });
});

describe('transactions', () => {
  it('see their own writes, and leave nothing when the work throws', async () => {
    const [repo] = await instances(1);
    const a = txRecord();
    const seen = await repo!.transaction(async (t) => {
      t.write([{ c: 'transactions', k: a.id, v: a }]);
      return (await t.get('transactions', a.id))?.id;
    });
    expect(seen).toBe(a.id);
    const b = txRecord();
    await expect(
      repo!.transaction(async (t) => {
        t.write([{ c: 'transactions', k: b.id, v: b }]);
        await t.get('transactions', b.id);
        throw new Error('the rule said no');
      }),
    ).rejects.toThrow('the rule said no');
    expect(await repo!.get('transactions', b.id)).toBeUndefined();
  });

  it('a sandbox reset deletes a merchant’s records, attempts included, and nobody else’s', async () => {
    const [repo] = await instances(1);
    const a = txRecord();
    const b = txRecord({ merchantId: 'm2' });
    const ev = outboxRecord(a, { attempts: [{ attempt: 1 } as unknown as OutboxEvent['attempts'][number]] });
    await repo!.transaction(async (t) =>
      t.write([
        { c: 'transactions', k: a.id, v: a },
        { c: 'transactions', k: b.id, v: b },
        { c: 'outbox', k: ev.id, v: ev },
      ]),
    );
    await repo!.transaction(async (t) => t.deleteMerchantData('m1', ['transactions', 'outbox', 'sessions', 'sms', 'paymentIntents']));
    expect(await repo!.count('transactions')).toBe(1);
    expect(await repo!.count('outbox')).toBe(0);
  });
});

describe('two instances on one database', () => {
  it('50 concurrent lock-then-cancel of one transaction: exactly one wins', async () => {
    const [a, b] = await instances(2);
    const t0 = txRecord();
    await a!.transaction(async (t) => t.write([{ c: 'transactions', k: t0.id, v: t0 }]));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a! : b!).transaction(async (t) => {
          const cur = await t.lock('transactions', t0.id);
          if (cur?.status !== 'PENDING') return false;
          t.write([{ c: 'transactions', k: t0.id, v: { ...cur, status: 'CANCELED', updatedAt: at(1) } }]);
          return true;
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await b!.get('transactions', t0.id))?.status).toBe('CANCELED');
  });

  it('50 concurrent creates with one vendorReference: one succeeds, the reruns see it', async () => {
    const [a, b] = await instances(2);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a! : b!).transaction(async (t) => {
          if (await t.transactionByVendorReference('m1', 'SAME')) return 'conflict';
          const v = txRecord({ vendorReference: 'SAME' });
          t.write([{ c: 'transactions', k: v.id, v }]);
          return 'created';
        }),
      ),
    );
    expect(results.filter((r) => r === 'created')).toHaveLength(1);
    expect(results.filter((r) => r === 'conflict')).toHaveLength(49);
    expect(await a!.count('transactions')).toBe(1);
  });

  it('two creators of one missing merchant state serialise on lock (no lost update)', async () => {
    const [a, b] = await instances(2);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a! : b!).transaction(async (t) => {
          const cur = (await t.lock('merchantState', 'm9')) ?? { id: 'm9', clockOffsetMs: 0, endpointEnabled: true };
          t.write([{ c: 'merchantState', k: 'm9', v: { ...cur, clockOffsetMs: cur.clockOffsetMs + 60 } }]);
        }),
      ),
    );
    expect((await a!.get('merchantState', 'm9'))?.clockOffsetMs).toBe(20 * 60);
  });

  it('101 requests of one key counted across instances: exactly 1..101, then a new window', async () => {
    const [a, b] = await instances(2);
    const counts = await Promise.all(Array.from({ length: 101 }, (_, i) => (i % 2 ? a! : b!).countInWindow('m1:createTx', T0, 60_000)));
    expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    expect(new Set(counts.map((c) => c.startMs)).size).toBe(1);
    expect(await a!.countInWindow('m1:createTx', T0 + 60_000, 60_000)).toEqual({ startMs: T0 + 60_000, count: 1 });
    expect(await b!.countInWindow('m2:createTx', T0, 60_000)).toEqual({ startMs: T0, count: 1 });
    expect(await b!.peekWindow('m1:createTx', T0 + 60_001, 60_000)).toEqual({ startMs: T0 + 60_000, count: 1 });
    expect(await b!.peekWindow('m1:createTx', T0 + 120_000, 60_000)).toBeNull();
    expect(await b!.peekWindow('nobody', T0, 60_000)).toBeNull();
    await b!.resetWindows('m1:');
    expect((await a!.countInWindow('m1:createTx', T0 + 60_001, 60_000)).count).toBe(1);
    expect((await a!.countInWindow('m2:createTx', T0 + 1, 60_000)).count).toBe(2);
  });

  it('claims: three claimers on two instances never share an event; a claim runs out, a write ends it', async () => {
    const [a, b] = await instances(2);
    const tx = txRecord();
    const evs = Array.from({ length: 30 }, () => outboxRecord(tx));
    const future = outboxRecord(tx, { nextAttemptAt: at(999) });
    await a!.transaction(async (t) => {
      t.write([{ c: 'transactions', k: tx.id, v: tx }, ...evs.map((v) => ({ c: 'outbox' as const, k: v.id, v }))]);
      t.write([{ c: 'outbox', k: future.id, v: future }]);
    });
    const nowOf = () => T0 + 60_000;
    const claimed: string[] = [];
    const claimer = async (repo: PgRepository) => {
      for (;;) {
        const got = await repo.claimDue(nowOf, 4, 60_000);
        if (got.length === 0) return;
        claimed.push(...got.map((e) => e.id));
      }
    };
    await Promise.all([claimer(a!), claimer(b!), claimer(b!)]);
    expect(claimed.sort()).toEqual(evs.map((e) => e.id).sort());
    expect(await a!.claimDue(() => T0 + 999_000, 10, 60_000)).toEqual([expect.objectContaining({ id: future.id })]);

    // A claim holds against the other instance; a write ends it; a claim that runs out (an instance
    // that died) is claimed again. The held claims are long and the short one is waited out, so no
    // assertion depends on how long a fresh instance's first query takes.
    const [c, d] = await instances(2);
    const e1 = outboxRecord(tx);
    await c!.transaction(async (t) =>
      t.write([
        { c: 'transactions', k: tx.id, v: tx },
        { c: 'outbox', k: e1.id, v: e1 },
      ]),
    );
    expect((await c!.claimDue(nowOf, 10, 60_000)).map((e) => e.id)).toEqual([e1.id]);
    expect(await d!.claimDue(nowOf, 10, 60_000)).toEqual([]);
    expect(await c!.claimDue(nowOf, 10, 60_000)).toEqual([]);
    await d!.transaction(async (t) => {
      const cur = await t.lock('outbox', e1.id);
      t.write([{ c: 'outbox', k: e1.id, v: { ...cur!, nextAttemptAt: at(30) } }]);
    });
    expect((await c!.claimDue(nowOf, 10, 1)).map((e) => e.id)).toEqual([e1.id]);
    await new Promise((r) => setTimeout(r, 50));
    expect((await d!.claimDue(nowOf, 10, 60_000)).map((e) => e.id)).toEqual([e1.id]);
    expect(await c!.claimDue(nowOf, 10, 60_000)).toEqual([]);
  });

  it('change notices: every change to this instance, shared collections to the other, on commit only', async () => {
    const [a, b] = await instances(2);
    const got: ChangeNotice[] = [];
    const mine: ChangeNotice[] = [];
    b!.subscribe((n) => got.push(n));
    a!.subscribe((n) => mine.push(n));
    await b!.listening();
    const tx = txRecord();
    const ev = outboxRecord(tx);
    await expect(
      a!.transaction(async (t) => {
        t.write([{ c: 'merchantState', k: 'm1', v: { id: 'm1', clockOffsetMs: 60, endpointEnabled: true } }]);
        await t.count('transactions');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow();
    await a!.transaction(async (t) => t.write([{ c: 'transactions', k: tx.id, v: tx }]));
    await a!.transaction(async (t) => t.write([{ c: 'outbox', k: ev.id, v: ev }]));
    expect(mine).toEqual([
      { collection: 'transactions', merchantId: 'm1', id: tx.id },
      { collection: 'outbox', merchantId: 'm1', id: ev.id },
    ]);
    await expect.poll(() => got, { timeout: 5000 }).toEqual([{ collection: 'outbox', merchantId: 'm1', id: ev.id }]);
  });

  it('the event stream never skips an event that commits late: a merchant’s new events commit in insertion order', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await instances(2, 10, url);
    const tx = txRecord();
    await a!.transaction(async (t) => t.write([{ c: 'transactions', k: tx.id, v: tx }]));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedFirst = new Promise<void>((r) => (inserted = r));
    const first = outboxRecord(tx, { id: 'msg_first' });
    const second = outboxRecord(tx, { id: 'msg_second' });
    const slow = a!.transaction(async (t) => {
      t.write([{ c: 'outbox', k: first.id, v: first }]);
      await t.count('outbox'); // the insert is made now; the commit waits for the gate
      inserted();
      await gate;
    });
    // No sleep: on a busy machine the pool checkout, BEGIN and insert can take longer than any
    // pause, and the second would then come first. (`slow` failing ends the wait too.)
    await Promise.race([insertedFirst, slow]);
    let fastSettled = false;
    const settled = () => (fastSettled = true);
    const fast = b!.transaction(async (t) => t.write([{ c: 'outbox', k: second.id, v: second }]));
    fast.then(settled, settled);
    // The second is read once it has committed (the ordering lock missing: the read shows it) or
    // is seen waiting on an advisory lock (the merchant's ordering lock, the only one taken on
    // this database), not after a pause it may not have had time to use.
    const probe = new pg.Client({ connectionString: url });
    await probe.connect();
    try {
      const waitingOnLock = async () =>
        (
          await probe.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
          )
        ).rows[0]!.n > 0;
      await expect.poll(async () => fastSettled || (await waitingOnLock()), { timeout: 20_000 }).toBe(true);
      expect(await b!.outboxAfter('m1', null, 10)).toEqual([]); // the second waits for the first
    } finally {
      await probe.end();
      release(); // also when an assertion failed: closing the store waits for `slow`
    }
    await Promise.all([slow, fast]);
    expect((await b!.outboxAfter('m1', null, 10)).map((e) => e.id)).toEqual(['msg_first', 'msg_second']);
  });
});

describe('operations', () => {
  it('a lost database: StoreUnavailableError with the wait, ping false; back: recovers, notices resume', async () => {
    const [a, b] = await instances(2);
    const got: ChangeNotice[] = [];
    b!.subscribe((n) => got.push(n));
    await b!.listening();
    expect(await a!.ping()).toBe(true);
    expect(a!.unavailableFor()).toBeNull();
    await cluster.pause();
    try {
      const err = await a!.transaction(async (t) => t.count('transactions')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).retryAfterSeconds).toBe(7);
      expect(a!.unavailableFor()).toBeGreaterThan(0);
      await expect(a!.get('transactions', randomUUID())).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await a!.ping()).toBe(false);
    } finally {
      await cluster.start();
    }
    await expect.poll(() => a!.ping(), { timeout: 10_000 }).toBe(true);
    expect(a!.unavailableFor()).toBeNull();
    // The listener reconnects on its own (backoff up to 5 s): write until a notice arrives.
    await expect
      .poll(
        async () => {
          await a!.transaction(async (t) =>
            t.write([{ c: 'merchantState', k: 'm1', v: { id: 'm1', clockOffsetMs: 0, endpointEnabled: true } }]),
          );
          return got.length;
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBeGreaterThan(0);
  }, 60_000);

  it('start-up refuses a wrong URL and a database at a newer migration, with clear messages', async () => {
    await expect(openPgRepository({ url: 'postgres://nobody:secret@127.0.0.1:1/none' })).rejects.toThrow(
      /cannot connect to the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/,
    );
    const url = await cluster.createDatabase();
    opened.push(await openPgRepository({ url }));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query("INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'from_the_future', 'x')");
    await c.end();
    await expect(openPgRepository({ url })).rejects.toThrow(
      /the database at postgres:\/\/\S+ is at migration 999 \(from_the_future\), newer than this server's latest/,
    );
  });
});
