/**
 * The sandbox's lists and webhook endpoint judged against the answers the judge saw (pages.ts,
 * sms.ts, deliveries.ts), fed exchanges directly: each rule flags the
 * catalogue mutant it is for and stays quiet on the correct sequence beside it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { webhookDelivery } from '../generated/index.ts';
import { ObservedJudge as StateTracker, type Observation } from './test-support/observe.ts';
import { partnerRecord } from './test-support/record.ts';

const A = 'merchant-a';
const B = 'merchant-b';
let seq = 0;
const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const iso = (t: number) => new Date(t).toISOString();

function ob(
  opId: string,
  merchant: string,
  status: number,
  json: unknown,
  search = '',
  at = T0,
  params: Record<string, string> = {},
): Observation {
  // one exchange at a time: none other open beside it
  return {
    seq: ++seq,
    opId,
    merchant,
    params,
    requestJson: undefined,
    status,
    json,
    search,
    sentAt: at - 5,
    receivedAt: at + 5,
    othersOpen: false,
  };
}
/** B1 answered 201 for merchant `m` at `at`: the transaction's id and phone. */
function create(s: StateTracker, m = A, phone = '212612345678', at = T0): { id: string; phone: string; rec: Record<string, unknown> } {
  const rec = partnerRecord(at, { customerPhone: phone }) as Record<string, unknown> & { id: string };
  expect(s.observe(ob('createPartnerTransaction', m, 201, rec, '', at))).toEqual([]);
  return { id: rec.id, phone, rec };
}
const sms = (tx: { id: string; phone: string }, over: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  to: tx.phone,
  body: 'M: confirm your payment',
  transactionId: tx.id,
  sentAt: iso(T0),
  ...over,
});
const outbox = (s: StateTracker, data: unknown[], search: string, m = A, at = T0 + 1000) =>
  s.observe(ob('sandboxListSms', m, 200, { data, nextCursor: null }, search, at)).map((f) => f.kind);

describe('the SMS outbox against the B1 answers (confirmation-sms)', () => {
  it('one message per transaction, to its customerPhone: no finding, filtered or read whole', () => {
    const s = new StateTracker({});
    const a = create(s);
    const b = create(s);
    expect(outbox(s, [sms(a)], `transactionId=${a.id}`)).toEqual([]);
    expect(outbox(s, [sms(a), sms(b)], '')).toEqual([]);
  });

  it('no message (mutant "confirmation SMS not sent"), two (mutant "each confirmation SMS twice"): findings', () => {
    const s = new StateTracker({});
    const a = create(s);
    expect(outbox(s, [], `transactionId=${a.id}`)).toEqual(['sms']);
    expect(outbox(s, [sms(a), sms(a)], `transactionId=${a.id}`)).toEqual(['sms']);
  });

  it('two for one transaction on a page with a next cursor (the read not whole yet): a finding', () => {
    const s = new StateTracker({});
    const a = create(s);
    const page = { data: [sms(a), sms(a)], nextCursor: 'c1' };
    const kinds = s.observe(ob('sandboxListSms', A, 200, page, 'limit=2', T0 + 1000)).map((f) => f.kind);
    expect(kinds).toEqual(['sms']);
  });

  it('a transaction made after the read began is not expected yet', () => {
    const s = new StateTracker({});
    create(s, A, '212612345678', T0 + 5000);
    expect(outbox(s, [], '', A, T0 + 1000)).toEqual([]);
  });

  it('another phone (mutant "SMS sent to another phone"), another merchant\'s transaction: findings', () => {
    const s = new StateTracker({});
    const a = create(s);
    const b = create(s, B);
    expect(outbox(s, [sms(a, { to: '212612345679' })], `transactionId=${a.id}`)).toEqual(['sms']);
    expect(outbox(s, [sms(a), sms(b)], '')).toEqual(['sms']);
  });
});

describe('the transactions list read to its end (ADR-028)', () => {
  it('a transaction B1 made before the read began and missing from every page is a finding', () => {
    const s = new StateTracker({});
    const a = create(s);
    const list = (data: unknown[]) =>
      s.observe(ob('sandboxListTransactions', A, 200, { data, nextCursor: null }, 'limit=5', T0 + 1000)).map((f) => f.kind);
    expect(list([])).toEqual(['list']);
    expect(list([a.rec])).toEqual([]);
  });
});

const RETRY = webhookDelivery.retry;
/** A delivery of transaction `tx` whose attempts answered `statuses`, at the nominal compressed delays. */
function delivery(tx: string, statuses: number[], state: string, nextAttemptAt: string | null = null) {
  let t = T0;
  const attempts = statuses.map((status, i) => {
    if (i > 0) t += ((RETRY.delaysSeconds[i] ?? RETRY.delaysSeconds.at(-1)!) * 1000) / RETRY.sandboxCompression;
    return { attempt: i + 1, at: iso(t), status, durationMs: 5, error: null, headers: {} };
  });
  return { id: `msg_${randomUUID().slice(0, 8)}`, event: 'transaction.cancelled', transactionId: tx, state, nextAttemptAt, attempts };
}
const deliveries = (s: StateTracker, data: unknown[], at = T0 + 1000) =>
  s.observe(ob('sandboxListWebhookDeliveries', A, 200, { data, nextCursor: null }, '', at));
const endpoint = (s: StateTracker, op: 'sandboxGetWebhookEndpoint' | 'sandboxSetWebhookEndpoint', enabled: boolean, at: number) =>
  s.observe(
    ob(op, A, 200, { url: 'http://127.0.0.1:9/hooks', secret: null, previousSecret: null, previousSecretExpiresAt: null, enabled }, '', at),
  );

describe('the webhook deliveries and endpoint (ADR-005, ADR-042)', () => {
  it('the schedule followed: no finding; retries stopped after one failed attempt (mutant): a finding', () => {
    const s = new StateTracker({});
    const next = iso(T0 + 5 + (RETRY.delaysSeconds[1] * 1000) / RETRY.sandboxCompression);
    expect(deliveries(s, [delivery(randomUUID(), [500], 'pending', next)])).toEqual([]);
    expect(deliveries(s, [delivery(randomUUID(), [500], 'failed')]).map((f) => f.kind)).toEqual(['webhook-retries']);
  });

  it('a redelivered delivery is not judged on its schedule', () => {
    const s = new StateTracker({});
    const d = delivery(randomUUID(), [500, 500, 500, 500, 500, 500, 500, 500, 500], 'failed');
    s.observe(ob('sandboxRedeliverWebhook', A, 202, {}, '', T0, { deliveryId: d.id }));
    expect(deliveries(s, [d])).toEqual([]);
  });

  /** The endpoint's reads around a listed 410 and a PUT after it, by a judge with `soleClient` as given: each read's finding kinds. */
  function readsAround410(soleClient: boolean): string[][] {
    const s = new StateTracker({ soleClient });
    expect(endpoint(s, 'sandboxSetWebhookEndpoint', true, T0 - 60_000)).toEqual([]);
    // the event of a transaction made after the PUT: its 410 came after the latest enabling
    const tx = create(s, A, '212612345678', T0 - 30_000);
    expect(deliveries(s, [delivery(tx.id, [410], 'disabled')])).toEqual([]);
    const disabled = endpoint(s, 'sandboxGetWebhookEndpoint', false, T0 + 2000);
    const enabled = endpoint(s, 'sandboxGetWebhookEndpoint', true, T0 + 3000);
    expect(endpoint(s, 'sandboxSetWebhookEndpoint', true, T0 + 4000)).toEqual([]);
    return [disabled, enabled, endpoint(s, 'sandboxGetWebhookEndpoint', true, T0 + 5000)].map((fs) => fs.map((f) => f.kind));
  }

  it("the endpoint read enabled after a listed 410 disabled it (mutant): a finding for the key's sole client; after a PUT, enabled is right", () => {
    expect(readsAround410(true)).toEqual([[], ['webhook-retries'], []]);
  });

  it('the same reads by a judge that may not assume it sees every call: no finding (another client of the key may have enabled it again)', () => {
    expect(readsAround410(false)).toEqual([[], [], []]);
  });

  it('a PUT of a URL answered disabled (mutant "setting the webhook URL does not enable …"): a finding', () => {
    const s = new StateTracker({});
    expect(endpoint(s, 'sandboxSetWebhookEndpoint', false, T0).map((f) => f.kind)).toEqual(['webhook-retries']);
  });
});
