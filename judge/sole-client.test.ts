/**
 * The judge of a sole client's traffic (ADR-087): an effect on a merchant's sandbox no call it saw
 * explains is a `no-cause` finding, once `soleClient` is set and no other exchange was open when the
 * answer showing it ended; without either, none. Each case is one of the catalogue's cross-merchant
 * or uncounted faults, with the correct server's traffic beside it.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.ts';
import { judgeRecorded, markOthersOpen } from './recorded.ts';
import { createRequest, partnerRecord } from './test-support/record.ts';
import { exchangeOf, ObservedJudge, observation, type Observation } from './test-support/observe.ts';
import { rateLimitOf } from '../model/index.ts';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
let at = T0;
/** An exchange of `merchant` after the previous one, alone on the ear (none other open when it ended). */
const alone = (opId: string, status: number, json: unknown, o: Partial<Observation> = {}): Observation =>
  observation(opId, status, json, (at += 20), { othersOpen: false, ...o });
const noCause = (j: ObservedJudge, o: Observation) => j.observe(o).filter((f) => f.kind === 'no-cause');
const judges = () => ({ sole: new ObservedJudge({ soleClient: true }), assuming: new ObservedJudge() });

/** Both merchants' B1 of one vendorReference, then `a`'s B4 of it: `b`'s record as it then reads. */
function sharedReference(j: ObservedJudge) {
  const ref = `cf-${at}`;
  const mine = partnerRecord(at, { vendorReference: ref });
  const theirs = partnerRecord(at, { vendorReference: ref });
  expect(noCause(j, alone('createPartnerTransaction', 201, mine, { requestJson: createRequest(mine) }))).toEqual([]);
  expect(noCause(j, alone('createPartnerTransaction', 201, theirs, { merchant: 'b', requestJson: createRequest(theirs) }))).toEqual([]);
  const cancelled = { ...mine, status: 'CANCELED', updatedAt: new Date(at + 21).toISOString() };
  expect(noCause(j, alone('cancelPartnerTransactionByVendorReference', 200, cancelled, { params: { vendorReference: ref } }))).toEqual([]);
  return { ref, theirs, read: (status: string) => ({ ...theirs, status, updatedAt: new Date(at + 1).toISOString() }) };
}

describe('a sole client judged (ADR-087)', () => {
  it('a record its merchant\'s calls did not move reads CANCELED (mutant "B4 also cancels the other merchant\'s transaction"): a finding', () => {
    const { sole, assuming } = judges();
    for (const j of [sole, assuming]) {
      const { theirs, read } = sharedReference(j);
      const found = noCause(
        j,
        alone('getPartnerTransaction', 200, read('CANCELED'), { merchant: 'b', params: { transactionId: theirs.id as string } }),
      );
      expect(found.map((f) => f.jsonPath)).toEqual(j === sole ? ['$.status'] : []);
    }
  });

  it("a call of the merchant that went through the ear unjudged (its client gone, its answer cut off): its sandbox's effects are not judged any more; another merchant's still are", () => {
    const j = new ObservedJudge({ soleClient: true });
    const s = sharedReference(j);
    const ex = exchangeOf(
      alone('cancelPartnerTransactionByVendorReference', 200, {}, { merchant: 'b', params: { vendorReference: s.ref } }),
    );
    j.judge.unjudged({ method: ex.method, url: ex.url, headers: ex.headers });
    expect(
      noCause(
        j,
        alone('getPartnerTransaction', 200, s.read('CANCELED'), { merchant: 'b', params: { transactionId: s.theirs.id as string } }),
      ),
    ).toEqual([]);
    // merchant a's calls were all judged: its clock is still held to them
    const clock = (offsetMs: number) => ({
      now: new Date(at + offsetMs).toISOString(),
      offsetSeconds: Math.floor(offsetMs / 1000),
      offsetMilliseconds: offsetMs,
    });
    expect(noCause(j, alone('sandboxGetClock', 200, clock(0)))).toEqual([]);
    expect(noCause(j, alone('sandboxAdvanceClock', 200, clock(2000), { requestJson: { milliseconds: 1000 } }))).toHaveLength(1);
  });

  it('the same read beside another open exchange, or read PENDING, or cancelled by its own merchant: no finding', () => {
    const j = new ObservedJudge({ soleClient: true });
    let s = sharedReference(j);
    const byId = { merchant: 'b', params: { transactionId: s.theirs.id as string } };
    expect(noCause(j, alone('getPartnerTransaction', 200, s.read('CANCELED'), { ...byId, othersOpen: true }))).toEqual([]);
    s = sharedReference(j);
    expect(
      noCause(
        j,
        alone(
          'getPartnerTransaction',
          200,
          { ...s.theirs, status: 'PENDING' },
          { merchant: 'b', params: { transactionId: s.theirs.id as string } },
        ),
      ),
    ).toEqual([]);
    const cancelled = s.read('CANCELED');
    expect(
      noCause(j, alone('cancelPartnerTransactionByVendorReference', 200, cancelled, { merchant: 'b', params: { vendorReference: s.ref } })),
    ).toEqual([]);
    expect(
      noCause(j, alone('getPartnerTransaction', 200, cancelled, { merchant: 'b', params: { transactionId: s.theirs.id as string } })),
    ).toEqual([]);
  });

  it("a sandbox scenario's customer (a magic phone) approves without a call; the clock expires without one: no finding", () => {
    const j = new ObservedJudge({ soleClient: true });
    const magic = partnerRecord(at, { customerPhone: '212600000101' });
    expect(noCause(j, alone('createPartnerTransaction', 201, magic, { requestJson: createRequest(magic) }))).toEqual([]);
    const approved = { ...magic, status: 'APPROVED', updatedAt: new Date(at + 1).toISOString() };
    expect(noCause(j, alone('getPartnerTransaction', 200, approved, { params: { transactionId: magic.id as string } }))).toEqual([]);
    // an ordinary phone: approved by no call is a finding
    const plain = partnerRecord(at);
    expect(noCause(j, alone('createPartnerTransaction', 201, plain, { requestJson: createRequest(plain) }))).toEqual([]);
    const plainApproved = { ...plain, status: 'APPROVED', updatedAt: new Date(at + 1).toISOString() };
    expect(noCause(j, alone('getPartnerTransaction', 200, plainApproved, { params: { transactionId: plain.id as string } }))).toHaveLength(
      1,
    );
  });

  it('a fault rule read back other than the one answered, or with calls the ear did not see used (mutant "accepted but never applied"): a finding', () => {
    const { sole, assuming } = judges();
    const rule = (id: string, remaining: number) => ({
      rule: { id, failure: '500', operations: ['createPartnerTransaction'], times: 2, used: 2 - remaining, remaining },
    });
    for (const j of [sole, assuming]) {
      expect(noCause(j, alone('sandboxSetFaultRule', 200, rule('flt_a', 2)))).toEqual([]);
      expect(noCause(j, alone('sandboxGetFaultRule', 200, rule('flt_a', 2)))).toEqual([]);
      expect(noCause(j, alone('sandboxGetFaultRule', 200, rule('flt_b', 2))).map((f) => f.jsonPath)).toEqual(
        j === sole ? ['$.rule.id'] : [],
      );
      expect(noCause(j, alone('sandboxSetFaultRule', 200, rule('flt_c', 2)))).toEqual([]);
      expect(noCause(j, alone('sandboxGetFaultRule', 200, rule('flt_c', 1))).map((f) => f.jsonPath)).toEqual(
        j === sole ? ['$.rule.remaining'] : [],
      );
    }
    // a timeout rule's calls get no answer the judge can count: its count read back is not judged
    const timeout = {
      id: 'flt_t',
      failure: 'timeout',
      timeoutSeconds: 1,
      operations: ['createPartnerTransaction'],
      times: 1,
      used: 0,
      remaining: 1,
    };
    expect(noCause(sole, alone('sandboxSetFaultRule', 200, { rule: timeout }))).toEqual([]);
    expect(noCause(sole, alone('sandboxGetFaultRule', 200, { rule: { ...timeout, used: 1, remaining: 0 } }))).toEqual([]);
    // a rule whose operations the answer does not list: not followed, so not judged either
    expect(
      noCause(sole, alone('sandboxSetFaultRule', 200, { rule: { ...timeout, id: 'flt_all', failure: '500', operations: null } })),
    ).toEqual([]);
    expect(
      noCause(sole, alone('sandboxGetFaultRule', 200, { rule: { ...timeout, id: 'flt_other', failure: '500', operations: null } })),
    ).toEqual([]);
  });

  it('a rule\'s failure answered after its times (mutant "one call more"), or to a merchant with none ("also set for the other merchant"): a finding', () => {
    const j = new ObservedJudge({ soleClient: true });
    const failed = { error: { code: 'INTERNAL_ERROR', message: 'x' } };
    const b1 = (merchant: string, status: number) => {
      const rec = partnerRecord(at);
      return alone('createPartnerTransaction', status, status === 201 ? rec : failed, { merchant, requestJson: createRequest(rec) });
    };
    expect(
      noCause(
        j,
        alone('sandboxReset', 200, { now: new Date(at).toISOString(), offsetSeconds: 0, offsetMilliseconds: 0 }, { merchant: 'b' }),
      ),
    ).toEqual([]);
    expect(
      noCause(
        j,
        alone('sandboxSetFaultRule', 200, {
          rule: { id: 'flt_a', failure: '500', operations: ['createPartnerTransaction'], times: 1, used: 0, remaining: 1 },
        }),
      ),
    ).toEqual([]);
    // b has none: its call answered as a's rule answers
    expect(noCause(j, b1('b', 500)).map((f) => f.message)).toEqual([expect.stringContaining("another merchant's")]);
    expect(noCause(j, b1('a', 500))).toEqual([]);
    expect(noCause(j, b1('a', 500)).map((f) => f.message)).toEqual([expect.stringContaining('after it had answered all its calls')]);
    expect(noCause(j, b1('a', 201))).toEqual([]);
  });

  it('the webhook endpoint reads another secret than its last answer (mutant "secret set on the other merchant\'s endpoint"): a finding; after its own PUT or a reset, none', () => {
    const j = new ObservedJudge({ soleClient: true });
    const endpoint = (secret: string) => ({ url: 'http://127.0.0.1:9/hooks', secret, enabled: true });
    expect(noCause(j, alone('sandboxGetWebhookEndpoint', 200, endpoint('whsec_one')))).toEqual([]);
    expect(noCause(j, alone('sandboxGetWebhookEndpoint', 200, endpoint('whsec_two'))).map((f) => f.jsonPath)).toEqual(['$.secret']);
    expect(noCause(j, alone('sandboxSetWebhookEndpoint', 200, endpoint('whsec_three')))).toEqual([]);
    expect(noCause(j, alone('sandboxGetWebhookEndpoint', 200, endpoint('whsec_three')))).toEqual([]);
    expect(noCause(j, alone('sandboxReset', 200, { now: new Date(at).toISOString(), offsetSeconds: 0, offsetMilliseconds: 0 }))).toEqual(
      [],
    );
    expect(noCause(j, alone('sandboxGetWebhookEndpoint', 200, endpoint('whsec_seeded')))).toEqual([]);
  });

  it('the clock advanced by milliseconds shows another offset than its last plus the advance (mutant "moves by whole seconds only"): a finding', () => {
    const { sole, assuming } = judges();
    const clock = (offsetMs: number) => ({
      now: new Date(at + offsetMs).toISOString(),
      offsetSeconds: Math.floor(offsetMs / 1000),
      offsetMilliseconds: offsetMs,
    });
    for (const j of [sole, assuming]) {
      expect(noCause(j, alone('sandboxGetClock', 200, clock(5000)))).toEqual([]);
      expect(noCause(j, alone('sandboxAdvanceClock', 200, clock(5296), { requestJson: { milliseconds: 296 } }))).toEqual([]);
      const found = noCause(j, alone('sandboxAdvanceClock', 200, clock(7000), { requestJson: { milliseconds: 296 } }));
      expect(found.map((f) => f.expected)).toEqual(j === sole ? [5592] : []);
    }
  });

  it('the API log records a call its merchant\'s key did not make since it started (mutant "also records the other merchant\'s calls"): a finding', () => {
    const { sole, assuming } = judges();
    const entry = (operationId: string, method: string, path: string, status: number) => ({
      operationId,
      method,
      path,
      status,
      origin: null,
    });
    for (const j of [sole, assuming]) {
      const start = alone('sandboxSetApiLog', 200, { recording: true, entries: [] }, { requestJson: { recording: true } });
      expect(noCause(j, start)).toEqual([]);
      const mine = entry('sandboxSetApiLog', 'PUT', '/api/v1/sandbox/api-log', 200);
      expect(noCause(j, alone('sandboxGetApiLog', 200, { recording: true, entries: [mine] }))).toEqual([]);
      const theirs = entry('getPartnerTransaction', 'GET', '/api/v1/public/partner/transactions/0d2c1f7e-7b1a-4c4e-9f51-3f2a1b0c9d8e', 404);
      const found = noCause(j, alone('sandboxGetApiLog', 200, { recording: true, entries: [mine, theirs] }));
      expect(found.map((f) => f.jsonPath)).toEqual(j === sole ? ['$.entries[1]'] : []);
    }
  });
});

describe('what a recording shows of exchanges open together', () => {
  it("markOthersOpen: open when another (not a GET) began before its answer ended and ended later (or with it); a recording's own value kept", () => {
    const x = (seq: number, sentAt: number, receivedAt: number, othersOpen?: boolean, method = 'POST'): Exchange => ({
      seq,
      method,
      url: '/',
      headers: {},
      status: 200,
      responseHeaders: {},
      responseText: '',
      sentAt,
      receivedAt,
      othersOpen,
    });
    // 1 alone; 2 ends inside 3; 3 ends after 2 began; 4 and 5 end together; 6 said so itself; 7 ends inside
    // an event stream (8, a GET open from 75 to 200: it changes nothing), 9 (a GET) inside 10
    const list = [x(1, 0, 10), x(2, 22, 25), x(3, 20, 30), x(4, 40, 50), x(5, 45, 50), x(6, 60, 70, true)];
    list.push(x(7, 80, 90), x(8, 75, 200, undefined, 'GET'), x(9, 101, 105, undefined, 'GET'), x(10, 100, 110));
    markOthersOpen(list);
    expect(list.map((e) => e.othersOpen)).toEqual([false, true, false, true, true, true, false, false, true, false]);
  });
});

describe("another merchant's delivery", () => {
  it('redelivered by a merchant whose it is not, answered 200 (mutant "redelivery of the other merchant\'s delivery accepted"): a finding, whatever the option', () => {
    const j = new ObservedJudge();
    const rec = partnerRecord(at);
    expect(noCause(j, alone('createPartnerTransaction', 201, rec, { merchant: 'b', requestJson: createRequest(rec) }))).toEqual([]);
    const delivery = { id: 'msg_theirs', event: 'transaction.cancelled', transactionId: rec.id, state: 'pending', attempts: [] };
    const redeliver = (merchant: string) =>
      j.observe(alone('sandboxRedeliverWebhook', 200, delivery, { merchant, params: { deliveryId: 'msg_theirs' } }));
    expect(redeliver('b').filter((f) => f.kind === 'other-merchant')).toEqual([]);
    expect(
      redeliver('a')
        .filter((f) => f.kind === 'other-merchant')
        .map((f) => f.expected),
    ).toEqual([404]);
  });
});

describe('a recording with its secrets masked', () => {
  it('an endpoint read back with another masked secret: a no-cause finding (one digest per value); the same mask twice, none', async () => {
    const get = (seq: number, secret: string): Exchange => ({
      seq,
      method: 'GET',
      url: 'http://127.0.0.1:3000/api/v1/sandbox/webhook-endpoint',
      headers: { 'x-api-key': 'MASKED_0000beef' },
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseText: JSON.stringify({
        url: 'http://127.0.0.1:9/hooks',
        secret,
        previousSecret: null,
        previousSecretExpiresAt: null,
        enabled: true,
      }),
      sentAt: T0 + seq * 10,
      receivedAt: T0 + seq * 10 + 2,
    });
    const found = async (secrets: string[]) =>
      (await judgeRecorded({ exchanges: secrets.map((x, i) => get(i + 1, x)) }, { soleClient: true })).findings.map((f) => f.kind);
    expect(await found(['MASKED_aaaaaaaa', 'MASKED_aaaaaaaa'])).toEqual([]);
    expect(await found(['MASKED_aaaaaaaa', 'MASKED_bbbbbbbb'])).toEqual(['no-cause']);
  });
});

describe("A1's window on a test key before its sandbox clock is known (ADR-087)", () => {
  const { windowSeconds: W, limit } = rateLimitOf('createSession')!;
  let token = 0;
  /** A1 alone on the ear at `when`, answered 200 (or `o.status`) with the wait `reset` (s) and `remaining` requests left. */
  const a1 = (when: number, reset: number, o: Partial<Observation> & { remaining?: number } = {}) => {
    const { remaining = 50, ...rest } = o;
    const status = rest.status ?? 200;
    const json =
      status === 200 ? { token: `st_test_a1_${++token}` } : { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'x', retry_after: reset } };
    return observation('createSession', status, json, when, {
      othersOpen: false,
      responseHeaders: { 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) },
      ...rest,
    });
  };
  const rateFindings = (j: ObservedJudge, o: Observation) => j.observe(o).filter((f) => f.kind === 'rate-limit');
  const start = () => (at += 60_000);
  const clock = (offsetMs: number) => ({
    now: new Date(at + offsetMs).toISOString(),
    offsetSeconds: Math.floor(offsetMs / 1000),
    offsetMilliseconds: offsetMs,
  });
  const noFinding = (j: ObservedJudge, o: Observation) => expect(j.observe(o).filter((f) => f.kind !== 'answer')).toEqual([]);

  it('a whole window answered again 1.1 s later (mutant "A1\'s wait counted from the request itself"): a finding for a sole client only', () => {
    const { sole, assuming } = judges();
    for (const j of [sole, assuming]) {
      const t = start();
      expect(rateFindings(j, a1(t, W))).toEqual([]);
      expect(rateFindings(j, a1(t + 1100, W)).length).toBe(j === sole ? 1 : 0);
    }
  });

  it('the waits of one window counted down: no finding; beside an open exchange, not judged', () => {
    const j = new ObservedJudge({ soleClient: true });
    const t = start();
    expect(rateFindings(j, a1(t, W))).toEqual([]);
    expect(rateFindings(j, a1(t + 1100, W - 1))).toEqual([]);
    expect(rateFindings(j, a1(t + 30_000, W - 30))).toEqual([]);
    // beside another open exchange the sandbox clock may have moved: not judged on the ear's clock
    expect(rateFindings(j, a1(t + 31_100, W, { othersOpen: true }))).toEqual([]);
  });

  it("the clock's first answer puts the window on the server's clock: a read, or an advance (the offset before it, the new one less the advance)", () => {
    const j = new ObservedJudge({ soleClient: true });
    let t = start();
    expect(rateFindings(j, a1(t, W, { merchant: 'read' }))).toEqual([]);
    noFinding(j, alone('sandboxGetClock', 200, clock(3_600_000), { merchant: 'read' }));
    expect(rateFindings(j, a1(at + 1100, W - 1, { merchant: 'read' }))).toEqual([]);
    expect(rateFindings(j, a1(at + 2200, W, { merchant: 'read' }))).toHaveLength(1);
    // a window shown full, then the clock advanced: a minute short of its end a success is a finding
    // (mutant "rate-limit window a minute shorter"), the correct 429 none; past its end a new window
    // answers 200 (mutant "a second longer" refuses it)
    for (const [advance, status, wait, found] of [
      [W - 60, 200, 60, true],
      [W - 60, 429, 60, false],
      [W + 1, 200, W, false],
      [W + 1, 429, 1, true],
    ] as const) {
      const merchant = `advanced-${advance}-${status}`;
      t = start();
      expect(rateFindings(j, a1(t, W, { merchant, remaining: 0 }))).toEqual([]);
      noFinding(j, alone('sandboxAdvanceClock', 200, clock(advance * 1000), { merchant, requestJson: { seconds: advance } }));
      const last = a1(at + 100, wait, { merchant, status, remaining: status === 200 ? 99 : 0 });
      expect(rateFindings(j, last).length > 0, merchant).toBe(found);
    }
  });

  it('a reset forgets the windows: the next A1 opens one, which ends exactly its length later (mutants "a minute shorter", "a second longer")', () => {
    const j = new ObservedJudge({ soleClient: true });
    const reset = { now: new Date(at).toISOString(), offsetSeconds: 0, offsetMilliseconds: 0 };
    /** Reset, A1 filling the window, the clock advanced by `ms`, then A1 answered `status`: the rate-limit findings of the last. */
    const after = (merchant: string, ms: number, status: number) => {
      noFinding(j, alone('sandboxReset', 200, { ...reset, now: new Date(at).toISOString() }, { merchant, requestJson: {} }));
      // the window filled: its limit of requests, each answered with the same end
      const opened = (at += 20);
      for (let n = 1; n <= limit; n++) expect(rateFindings(j, a1(opened + n, W, { merchant, remaining: limit - n }))).toEqual([]);
      noFinding(j, alone('sandboxAdvanceClock', 200, clock(ms), { merchant, requestJson: { milliseconds: ms } }));
      return rateFindings(j, a1((at += 20), status === 200 ? W : 1, { merchant, status, remaining: status === 200 ? 99 : 0 })).length;
    };
    // 0.6 s before the end: still the full window (the waits alone put its end only within a second)
    expect(after('short-mutant', W * 1000 - 600, 200)).toBeGreaterThan(0);
    expect(after('short-correct', W * 1000 - 600, 429)).toBe(0);
    // 0.3 s after the end: a new window
    expect(after('long-mutant', W * 1000 + 300, 429)).toBeGreaterThan(0);
    expect(after('long-correct', W * 1000 + 300, 200)).toBe(0);
    // the opening request's own wait: a whole window
    noFinding(j, alone('sandboxReset', 200, reset, { merchant: 'first', requestJson: {} }));
    expect(rateFindings(j, a1((at += 20), W - 60, { merchant: 'first' }))).toHaveLength(1);
    // without the option the reset leaves the count unknown: none of these is judged
    const assuming = new ObservedJudge();
    noFinding(assuming, alone('sandboxReset', 200, reset, { merchant: 'x', requestJson: {} }));
    expect(rateFindings(assuming, a1((at += 20), W - 60, { merchant: 'x' }))).toEqual([]);
  });
});
