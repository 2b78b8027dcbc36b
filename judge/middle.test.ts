/**
 * The judge started in the middle: in front of a server with history (a transaction made before
 * it saw anything, a clock advanced and reset before it started, deliveries with attempts on both
 * sides of a reset), it judges only what it can know, never assuming it saw everything. Each case
 * beside the same with a real fault, which is a finding; where only the keys' sole client (ADR-087)
 * can tell that fault from another client's call (a clock moved, an endpoint enabled), a finding
 * for it, and none for a judge that may not assume it sees every call.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookDelivery } from '../generated/index.ts';
import { listed, madeThroughEar, observation, ObservedJudge, smsOf } from './test-support/observe.ts';
import { createRequest, partnerRecord } from './test-support/record.ts';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const HOURS = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();
const ob = observation;
const kinds = (fs: { kind: string }[]) => fs.map((f) => f.kind);
/** The sandbox clock answered `offsetSeconds` at `at` (a read, or a reset). */
const clock = (j: ObservedJudge, offsetSeconds: number, at: number, op = 'sandboxGetClock') =>
  j.observe(
    ob(
      op,
      200,
      op === 'sandboxReset'
        ? { now: iso(at), offsetSeconds, deleted: { transactions: 0, sessions: 0, sms: 0, deliveries: 0 } }
        : { now: iso(at + offsetSeconds * 1000), offsetSeconds },
      at,
    ),
  );
const made = madeThroughEar;
const read = (j: ObservedJudge, rec: Record<string, unknown>, at: number) =>
  kinds(j.observe(ob('getPartnerTransaction', 200, rec, at, { params: { transactionId: rec.id as string } })));

describe('a transaction the judge never saw made', () => {
  it('first read CANCELED with an updatedAt hours ahead of the clock (changed while the clock was advanced, before a reset): no finding', () => {
    const j = new ObservedJudge();
    clock(j, 0, T0);
    const rec = partnerRecord(T0 - 20 * HOURS, { status: 'CANCELED', updatedAt: iso(T0 + 9 * HOURS) });
    expect(read(j, rec, T0 + 1000)).toEqual([]);
  });

  /** A change 9 hours ahead on a transaction made through the ear, its clock answered at offset 0 before. */
  const aheadOfClock = (j: ObservedJudge): string[] => {
    clock(j, 0, T0);
    const rec = made(j, T0 + 1000);
    return read(j, { ...rec, status: 'CANCELED', updatedAt: iso(T0 + 9 * HOURS) }, T0 + 3000);
  };

  it("the same change on one the judge saw made, on a clock it followed at offset 0 throughout (the key's sole client): a finding", () => {
    expect(aheadOfClock(new ObservedJudge({ soleClient: true }))).toEqual(['timestamps']);
  });

  it('the same to a judge that may not assume it sees every call: no finding (another client of the key may have advanced its clock)', () => {
    expect(aheadOfClock(new ObservedJudge())).toEqual([]);
  });
});

describe('a change stamped before createdAt: a reset between the making and the change (ADR-041)', () => {
  /** A transaction made on a clock an hour ahead, then (`reset`) the clock put back, then read CANCELED with an updatedAt of real time. */
  const cancelledBehind = (j: ObservedJudge, reset: boolean): string[] => {
    clock(j, 3600, T0);
    const rec = made(j, T0 + 1000, HOURS);
    if (reset) clock(j, 0, T0 + 2000, 'sandboxReset');
    return read(j, { ...rec, status: 'CANCELED', updatedAt: iso(T0 + 3000) }, T0 + 3500);
  };

  it("after a reset the key's sole client saw: no finding", () => {
    expect(cancelledBehind(new ObservedJudge({ soleClient: true }), true)).toEqual([]);
  });

  it("with no reset, for the key's sole client: a finding (mutant: a change stamped before its record's making)", () => {
    expect(cancelledBehind(new ObservedJudge({ soleClient: true }), false)).toContain('timestamps');
  });

  it('with no reset seen, by a judge that may not assume it sees every call: no finding (another client of the key may have reset it)', () => {
    expect(cancelledBehind(new ObservedJudge(), false)).toEqual([]);
  });

  it('first read so, the making never seen: no finding (a reset before the judge started may lie between)', () => {
    const j = new ObservedJudge({ soleClient: true });
    clock(j, 0, T0);
    expect(read(j, partnerRecord(T0 - HOURS, { status: 'CANCELED', updatedAt: iso(T0 - 2 * HOURS) }), T0 + 1000)).toEqual([]);
  });
});

describe("a merchant's data deleted by a reset the judge did not see (ADR-041: another client of the key)", () => {
  const NOT_FOUND = { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found', details: [] } };
  /** A transaction made through the ear, then (unseen) every transaction of the merchant deleted: what `after` finds. */
  const afterDeletion = (soleClient: boolean, after: (j: ObservedJudge, rec: Record<string, unknown>) => string[]): string[] => {
    const j = new ObservedJudge({ soleClient });
    clock(j, 0, T0);
    return after(j, made(j, T0 + 1000));
  };
  const cases: [string, string, (j: ObservedJudge, rec: Record<string, unknown>) => string[]][] = [
    [
      'B2 answering 404 for it',
      'own-404',
      (j, rec) => kinds(j.observe(ob('getPartnerTransaction', 404, NOT_FOUND, T0 + 3000, { params: { transactionId: rec.id as string } }))),
    ],
    ['the transactions list read whole without it', 'list', (j) => listed(j, 'sandboxListTransactions', [], T0 + 3000)],
    ['the outbox read whole without its confirmation SMS', 'sms', (j) => listed(j, 'sandboxListSms', [], T0 + 3000)],
    [
      'B1 answering 201 with its vendorReference',
      'duplicate-reference',
      (j, rec) => {
        const again = partnerRecord(T0 + 3000, { vendorReference: rec.vendorReference });
        return kinds(j.observe(ob('createPartnerTransaction', 201, again, T0 + 3000, { requestJson: createRequest(again) })));
      },
    ],
    [
      'its vendorReference read as another transaction',
      'b2-b3',
      (j, rec) => {
        const other = partnerRecord(T0 + 3000, { vendorReference: rec.vendorReference });
        const params = { vendorReference: rec.vendorReference as string };
        return kinds(j.observe(ob('getPartnerTransactionByVendorReference', 200, other, T0 + 3000, { params })));
      },
    ],
  ];
  for (const [what, kind, after] of cases) {
    it(`${what}: a finding for the key's sole client (no reset seen)`, () => {
      expect(afterDeletion(true, after)).toContain(kind);
    });
    it(`${what}: no finding by a judge that may not assume it sees every call, which then forgets the merchant's data`, () => {
      expect(afterDeletion(false, after)).toEqual([]);
    });
  }
});

describe('a list read whole that shows no deletion came: its last page lists a transaction made before the missing one (ADR-041, ADR-028)', () => {
  /** Y, then X made through the ear; then the list, or the outbox, read whole (`pages`) without X. */
  const missingX = (soleClient: boolean, pages: (j: ObservedJudge, y: Record<string, unknown>) => string[]): string[] => {
    const j = new ObservedJudge({ soleClient });
    clock(j, 0, T0);
    const y = made(j, T0 + 1000);
    made(j, T0 + 2000);
    return pages(j, y);
  };
  it('the transactions list, one page listing Y: a finding for any judge (a deletion that took X would have taken Y too)', () => {
    const whole = (j: ObservedJudge, y: Record<string, unknown>) => listed(j, 'sandboxListTransactions', [y], T0 + 3000);
    expect(missingX(true, whole)).toContain('list');
    expect(missingX(false, whole)).toContain('list');
  });
  it('the outbox, one page listing Y’s SMS: a finding for any judge', () => {
    const whole = (j: ObservedJudge, y: Record<string, unknown>) => listed(j, 'sandboxListSms', [smsOf(y, T0 + 1000)], T0 + 3000);
    expect(missingX(true, whole)).toContain('sms');
    expect(missingX(false, whole)).toContain('sms');
  });
  it('Y listed on an earlier page only, the last page empty: no finding without the assumption (a deletion between the pages took both)', () => {
    const paged = (j: ObservedJudge, y: Record<string, unknown>) => [
      ...listed(j, 'sandboxListTransactions', [y], T0 + 3000, { search: 'limit=1', nextCursor: 'c1' }),
      ...listed(j, 'sandboxListTransactions', [], T0 + 3500, { search: 'limit=1&cursor=c1' }),
    ];
    expect(missingX(true, paged)).toContain('list');
    expect(missingX(false, paged)).toEqual([]);
  });
  it('the last page listing only one made after the missing one: no finding without the assumption (made after a deletion)', () => {
    const onlyLater = (soleClient: boolean) => {
      const j = new ObservedJudge({ soleClient });
      clock(j, 0, T0);
      made(j, T0 + 1000);
      return listed(j, 'sandboxListTransactions', [made(j, T0 + 2000)], T0 + 3000);
    };
    expect(onlyLater(true)).toContain('list');
    expect(onlyLater(false)).toEqual([]);
  });
});

describe("a test key's events stop reaching the ear (its endpoint pointed elsewhere by a call the judge did not see)", () => {
  /** Two transactions cancelled through the ear; the first one's event came, the second's not within the window. */
  const secondEventMissing = (soleClient: boolean): string[] => {
    const j = new ObservedJudge({ soleClient, webhookWindowMs: 1000 });
    const cancel = (rec: Record<string, unknown>, at: number) =>
      j.observe(
        ob('cancelPartnerTransactionByVendorReference', 200, { ...rec, status: 'CANCELED', updatedAt: iso(at) }, at, {
          params: { vendorReference: rec.vendorReference as string },
        }),
      );
    const first = made(j, T0);
    cancel(first, T0 + 1000);
    expect(j.event('transaction.cancelled', first.id as string, 'msg_first', T0 + 1100, 9001)).toEqual([]);
    const second = made(j, T0 + 2000);
    cancel(second, T0 + 3000);
    return kinds(j.sweep(T0 + 10_000));
  };

  it("the key's sole client: a finding", () => {
    expect(secondEventMissing(true)).toEqual(['webhook-missing']);
  });

  it('a judge that may not assume it sees every call: no finding', () => {
    expect(secondEventMissing(false)).toEqual([]);
  });
});

describe("a test key's webhook secret rotated by a call the judge did not see (ADR-042, no overlap)", () => {
  const given = `whsec_${randomBytes(24).toString('base64')}`;
  const rotated = `whsec_${randomBytes(24).toString('base64')}`;
  /** A delivery about a transaction made through the ear, signed with a secret the judge was neither given nor shown. */
  const signedElsewhere = (soleClient: boolean): string[] => {
    const j = new ObservedJudge({ soleClient, webhooks: { secret: given, windowMs: 1000 } });
    const rec = made(j, T0);
    const body = JSON.stringify({ event: 'transaction.cancelled', data: { id: rec.id, status: 'CANCELED' } });
    const id = 'msg_rotated';
    const now = new Date();
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(rotated).sign(id, now, body),
    };
    return kinds(j.judge.delivery({ seq: 9002, receivedAt: now.getTime(), headers, body }));
  };

  it("the key's sole client: a bad signature", () => {
    expect(signedElsewhere(true)).toEqual(['webhook-payload']);
  });

  it('a judge that may not assume it sees every call: no finding', () => {
    expect(signedElsewhere(false)).toEqual([]);
  });

  /** A delivery about a transaction the judge never saw (its merchant unknown), signed with a secret it does not know. */
  const aboutUnknown = (soleClient: boolean): string[] => {
    const j = new ObservedJudge({ soleClient, webhooks: { secret: given, windowMs: 1000 } });
    const body = JSON.stringify({
      event: 'transaction.cancelled',
      data: { id: '5b1f0c6e-0000-4000-8000-00000000000a', status: 'CANCELED' },
    });
    const now = new Date();
    const headers = {
      'webhook-id': 'msg_unknown',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(rotated).sign('msg_unknown', now, body),
    };
    return kinds(j.judge.delivery({ seq: 9003, receivedAt: now.getTime(), headers, body }));
  };

  it("about a transaction the judge never saw: a finding for a sole client, none otherwise (it may be a test key's)", () => {
    expect(aboutUnknown(true)).toEqual(['webhook-payload']);
    expect(aboutUnknown(false)).toEqual([]);
  });
});

const sms = smsOf;
const outbox = (j: ObservedJudge, data: unknown[], at: number) => listed(j, 'sandboxListSms', data, at);

describe('a clock advanced and reset before the judge started', () => {
  it('the outbox lists messages of earlier runs with instants ahead of later ones (insertion order, ADR-081): no finding', () => {
    const j = new ObservedJudge();
    clock(j, 0, T0);
    // an earlier run's transaction, first seen read (its message made on a clock 7 hours ahead, before the reset)
    const before = partnerRecord(T0 - 2 * HOURS);
    expect(read(j, before, T0 + 500)).toEqual([]);
    const after = made(j, T0 + 1000);
    expect(outbox(j, [sms(before, T0 + 7 * HOURS), sms(after, T0 + 1000)], T0 + 5000)).toEqual([]);
  });

  it('two messages of transactions the judge saw made, listed in the other order: a finding', () => {
    const j = new ObservedJudge();
    clock(j, 0, T0);
    const first = made(j, T0 + 1000);
    const second = made(j, T0 + 2000);
    expect(outbox(j, [sms(second, T0 + 2000), sms(first, T0 + 1000)], T0 + 5000)).toEqual(['list']);
  });
});

const RETRY = webhookDelivery.retry;
const gapMs = (i: number) => (RETRY.delaysSeconds[i]! * 1000) / RETRY.sandboxCompression;
/** A delivery of `tx` whose attempts were made at `ats` (failed), pending its next. */
const delivery = (tx: string, ats: number[], id = `msg_${tx.slice(0, 8)}`) => ({
  id,
  event: 'transaction.cancelled',
  transactionId: tx,
  state: 'pending',
  nextAttemptAt: iso(ats.at(-1)! + gapMs(ats.length)),
  attempts: ats.map((at, i) => ({ attempt: i + 1, at: iso(at), status: 500, durationMs: 5, error: null, headers: {} })),
});
const deliveries = (j: ObservedJudge, data: unknown[], at: number) => listed(j, 'sandboxListWebhookDeliveries', data, at);

describe('deliveries with attempts on both sides of a reset', () => {
  it('a delivery first listed with its second attempt hours before its first (a reset between, before the judge started): no finding', () => {
    const j = new ObservedJudge();
    clock(j, 0, T0);
    const tx = '5b1f0c6e-0000-4000-8000-000000000001';
    expect(deliveries(j, [delivery(tx, [T0 + 7 * HOURS, T0 - 1000])], T0 + 1000)).toEqual([]);
  });

  it('a delivery of a transaction made through the judge, whose next attempt came after a reset the judge saw: no finding', () => {
    const j = new ObservedJudge();
    clock(j, 3600, T0);
    const rec = made(j, T0 + 1000, 3600_000);
    const first = T0 + 3600_000 + 2000;
    expect(deliveries(j, [delivery(rec.id as string, [first])], T0 + 3000)).toEqual([]);
    clock(j, 0, T0 + 4000, 'sandboxReset');
    expect(deliveries(j, [delivery(rec.id as string, [first, T0 + 4000 + gapMs(1)])], T0 + 5000 + gapMs(1))).toEqual([]);
  });

  /** A delivery of a transaction made through the ear listed with its second attempt at once after the first, no reset seen between. */
  const retriedAtOnce = (j: ObservedJudge): string[] => {
    clock(j, 0, T0);
    const rec = made(j, T0 + 1000);
    const first = T0 + 2000;
    expect(deliveries(j, [delivery(rec.id as string, [first])], T0 + 3000)).toEqual([]);
    return deliveries(j, [delivery(rec.id as string, [first, first])], T0 + 3000 + gapMs(1));
  };

  it('the same delivery, no reset between (the key\'s sole client): an attempt sooner than the schedule is a finding (mutant "webhook retries sent at once")', () => {
    expect(retriedAtOnce(new ObservedJudge({ soleClient: true }))).toEqual(['webhook-retries']);
  });

  it('the same to a judge that may not assume it sees every call: no finding (another client of the key may have reset its clock between)', () => {
    expect(retriedAtOnce(new ObservedJudge())).toEqual([]);
  });

  /** A delivery of a transaction made through the ear listed with one attempt more than the schedule makes, each on time. */
  const oneAttemptTooMany = (j: ObservedJudge): string[] => {
    clock(j, 0, T0);
    const rec = made(j, T0 + 1000);
    const ats = [T0 + 2000];
    // the schedule's attempts, each after its wait, then one more after the last wait again
    for (let i = 1; i <= RETRY.delaysSeconds.length; i++) ats.push(ats[i - 1]! + gapMs(Math.min(i, RETRY.delaysSeconds.length - 1)));
    const attempts = ats.map((at, i) => ({ attempt: i + 1, at: iso(at), status: 500, durationMs: 5, error: null, headers: {} }));
    const d = {
      id: `msg_${(rec.id as string).slice(0, 8)}`,
      event: 'transaction.cancelled',
      transactionId: rec.id,
      state: 'failed',
      nextAttemptAt: null,
      attempts,
    };
    return deliveries(j, [d], ats.at(-1)! + 1000);
  };

  it("one attempt more than the schedule makes, no redelivery seen (the key's sole client): a finding", () => {
    expect(oneAttemptTooMany(new ObservedJudge({ soleClient: true }))).toEqual(['webhook-retries']);
  });

  it('the same to a judge that may not assume it sees every call: no finding (another client of the key may have redelivered it)', () => {
    expect(oneAttemptTooMany(new ObservedJudge())).toEqual([]);
  });
});

const endpoint = (j: ObservedJudge, op: 'sandboxGetWebhookEndpoint' | 'sandboxSetWebhookEndpoint', enabled: boolean, at: number) =>
  kinds(
    j.observe(
      ob(op, 200, { url: 'http://127.0.0.1:9/hooks', secret: null, previousSecret: null, previousSecretExpiresAt: null, enabled }, at, {
        othersOpen: false,
      }),
    ),
  );

describe('a 410 listed from before the judge started', () => {
  it('the endpoint reads enabled after a delivery of an earlier run shows a 410 (re-enabled since, before the judge): no finding', () => {
    const j = new ObservedJudge();
    const gone = { ...delivery('5b1f0c6e-0000-4000-8000-000000000002', [T0 - HOURS]), state: 'disabled', nextAttemptAt: null };
    gone.attempts[0]!.status = 410;
    expect(deliveries(j, [gone], T0)).toEqual([]);
    expect(endpoint(j, 'sandboxGetWebhookEndpoint', true, T0 + 1000)).toEqual([]);
  });

  /** A 410 of an event the judge saw made after the latest PUT, then the endpoint read enabled. */
  const enabledAfterGone = (j: ObservedJudge): string[] => {
    expect(endpoint(j, 'sandboxSetWebhookEndpoint', true, T0)).toEqual([]);
    const rec = made(j, T0 + 1000);
    const gone = { ...delivery(rec.id as string, [T0 + 2000]), state: 'disabled', nextAttemptAt: null };
    gone.attempts[0]!.status = 410;
    expect(deliveries(j, [gone], T0 + 3000)).toEqual([]);
    return endpoint(j, 'sandboxGetWebhookEndpoint', true, T0 + 4000);
  };

  it("a 410 of an event the judge saw made after the latest PUT, then the endpoint read enabled (the key's sole client): a finding", () => {
    expect(enabledAfterGone(new ObservedJudge({ soleClient: true }))).toEqual(['webhook-retries']);
  });

  it('the same to a judge that may not assume it sees every call: no finding (another client of the key may have enabled it again)', () => {
    expect(enabledAfterGone(new ObservedJudge())).toEqual([]);
  });
});
