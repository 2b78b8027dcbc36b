/** Failures on demand (ADR-052) and the API log (ADR-056) judged from exchanges (simulate.ts): each catalogue mutant's fault is a finding, the right answer beside it none. */
import { describe, expect, it } from 'vitest';
import { ObservedJudge, type Observation } from './test-support/observe.ts';

let seq = 0;
let clock = Date.parse('2026-11-24T10:00:00.000Z');
function call(opId: string, status: number, over: Partial<Observation> = {}): Observation {
  clock += 10;
  return {
    seq: ++seq,
    opId,
    merchant: 'm',
    testKey: true,
    params: {},
    requestJson: undefined,
    status,
    json: status >= 400 ? { error: { code: 'INTERNAL_ERROR', message: 'x' } } : undefined,
    sentAt: clock,
    receivedAt: clock + 5,
    ...over,
  };
}
const b1 = (status: number, ref: string, simulate?: string) =>
  call('createPartnerTransaction', status, {
    requestJson: { vendorReference: ref },
    headers: simulate === undefined ? {} : { 'paylater-simulate': simulate },
  });
const b3 = (status: number, ref: string) => call('getPartnerTransactionByVendorReference', status, { params: { vendorReference: ref } });
const rule = (remaining: number) =>
  call('sandboxSetFaultRule', 200, {
    json: { rule: { id: 'flt_0123456789abcdef', failure: '500', operations: ['createPartnerTransaction'], times: 1, used: 0, remaining } },
  });
/** The failures-on-demand findings of one exchange (the state's rules judge these records too). */
const kinds = (j: ObservedJudge, c: Observation) =>
  j
    .observe(c)
    .map((f) => f.kind)
    .filter((k) => k === 'simulate' || k === 'api-log');

describe('failures on demand (ADR-052)', () => {
  it('a call with Paylater-Simulate answered that failure: no finding; run as usual (mutant "Paylater-Simulate ignored"): a finding', () => {
    const j = new ObservedJudge();
    expect(kinds(j, b1(500, 'r1', '500'))).toEqual([]);
    expect(kinds(j, b1(400, 'r1b', '429'))).toEqual([]);
    expect(kinds(j, b1(201, 'r2', '500'))).toEqual(['simulate']);
    // a live key: production refuses the header, not this judge's
    expect(kinds(j, { ...b1(201, 'r3', '500'), testKey: false })).toEqual([]);
  });

  it("a simulated 429's wait: the one its fault rule names, else x-simulate's retryAfterSeconds (2); another wait: a finding", () => {
    const a1 = (retryAfter: number, simulate?: string) =>
      call('createSession', 429, {
        othersOpen: false,
        json: { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'x', retry_after: retryAfter } },
        headers: simulate === undefined ? {} : { 'paylater-simulate': simulate },
      });
    const rule429 = (retryAfterSeconds: number | null) =>
      call('sandboxSetFaultRule', 200, {
        json: {
          rule: {
            id: 'flt_0123456789abcdef',
            failure: '429',
            retryAfterSeconds,
            operations: ['createSession'],
            times: 2,
            used: 0,
            remaining: 2,
          },
        },
      });
    const j = new ObservedJudge({ soleClient: true });
    // asked by the header, which names no wait
    expect(kinds(j, a1(2, '429'))).toEqual([]);
    expect(kinds(j, a1(5, '429'))).toEqual(['simulate']);
    // a rule naming 7 s, then one naming none
    expect(kinds(j, rule429(7))).toEqual([]);
    expect(kinds(j, a1(7))).toEqual([]);
    expect(kinds(j, a1(2))).toEqual(['simulate']);
    expect(kinds(j, rule429(null))).toEqual([]);
    expect(kinds(j, a1(2))).toEqual([]);
    expect(kinds(j, a1(3))).toEqual(['simulate']);
    // not the ear's keys alone: another client may have replaced the rule, so its wait is not judged
    const shared = new ObservedJudge();
    expect(kinds(shared, rule429(7))).toEqual([]);
    expect(kinds(shared, a1(2))).toEqual([]);
  });

  it('B3 finding the vendorReference of a simulated B1 failure (mutant "a simulated 500 on B1 still stores the transaction"): a finding', () => {
    const j = new ObservedJudge();
    expect(kinds(j, b1(500, 'gone', '500'))).toEqual([]);
    expect(kinds(j, b3(404, 'gone'))).toEqual([]);
    expect(kinds(j, b3(200, 'gone'))).toEqual(['simulate']);
    // once a B1 that ran made it, B3 finds it
    expect(kinds(j, b1(201, 'gone'))).toEqual([]);
    expect(kinds(j, b3(200, 'gone'))).toEqual([]);
  });

  it('a fault rule applied to its next call: no finding; not applied (mutant "the sandbox fault rule is accepted but never applied"): a finding', () => {
    const j = new ObservedJudge();
    expect(kinds(j, rule(1))).toEqual([]);
    expect(kinds(j, b1(500, 'x1'))).toEqual([]);
    expect(kinds(j, b1(201, 'x2'))).toEqual([]);
    expect(kinds(j, rule(1))).toEqual([]);
    expect(kinds(j, b1(201, 'x3'))).toEqual(['simulate']);
  });
});

describe('the API log against the calls forwarded (ADR-056)', () => {
  const entry = (origin: string | null) => ({
    at: '2026-01-01T00:00:00.000Z',
    operationId: 'getPartnerTransactionByVendorReference',
    method: 'GET',
    path: '/api/v1/public/partner/transactions/vendor/r1',
    status: 200,
    credential: 'apiKey',
    transactionId: null,
    vendorReference: 'r1',
    origin,
    referer: null,
    secFetchSite: null,
    simulated: false,
  });
  const read = (origin?: string) =>
    call('getPartnerTransactionByVendorReference', 200, { params: { vendorReference: 'r1' }, headers: origin ? { origin } : {} });
  const log = (entries: unknown[]) => call('sandboxGetApiLog', 200, { json: { entries } });
  it('an entry with the Origin the call carried: no finding; without it (mutant "the API log drops the Origin"): a finding', () => {
    const j = new ObservedJudge();
    // a call before the recording started: not in the log
    j.observe(read());
    j.observe(call('sandboxSetApiLog', 200, { json: { recording: true } }));
    j.observe(read('https://a.invalid'));
    expect(kinds(j, log([entry('https://a.invalid')]))).toEqual([]);
    expect(kinds(j, log([entry(null)]))).toEqual(['api-log']);
    // a call of the same path without Origin: null is right too
    j.observe(read());
    expect(kinds(j, log([entry(null)]))).toEqual([]);
  });
});
