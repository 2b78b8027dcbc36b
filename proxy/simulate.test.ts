/** Failures on demand (simulate.ts, ADR-052) and the API log (api-log.ts, ADR-056) judged on live traffic: each catalogue mutant's fault is a finding, the right answer beside it none. */
import { describe, expect, it } from 'vitest';
import { SimulateJudge, type SimulatedCall } from './simulate.ts';
import { ApiLogJudge } from './api-log.ts';

let seq = 0;
let clock = 1_000;
function call(opId: string, status: number, over: Partial<SimulatedCall> = {}): SimulatedCall {
  clock += 10;
  return {
    seq: ++seq,
    opId,
    merchant: 'm',
    testKey: true,
    simulate: undefined,
    params: {},
    requestJson: undefined,
    status,
    json: undefined,
    sentAt: clock,
    receivedAt: clock + 5,
    ...over,
  };
}
const b1 = (status: number, ref: string, simulate?: string) =>
  call('createPartnerTransaction', status, { simulate, requestJson: { vendorReference: ref } });
const b3 = (status: number, ref: string) => call('getPartnerTransactionByVendorReference', status, { params: { vendorReference: ref } });
const rule = (remaining: number) =>
  call('sandboxSetFaultRule', 200, {
    json: { rule: { id: 'flt_0123456789abcdef', failure: '500', operations: ['createPartnerTransaction'], times: 1, used: 0, remaining } },
  });
const kinds = (j: SimulateJudge, c: SimulatedCall) => j.judge(c).map((f) => f.kind);

describe('failures on demand (ADR-052)', () => {
  it('a call with Paylater-Simulate answered that failure: no finding; run as usual (mutant "Paylater-Simulate ignored"): a finding', () => {
    const j = new SimulateJudge(10);
    expect(kinds(j, b1(500, 'r1', '500'))).toEqual([]);
    expect(kinds(j, b1(400, 'r1b', '429'))).toEqual([]);
    expect(kinds(j, b1(201, 'r2', '500'))).toEqual(['simulate']);
    // a live key: production refuses the header, not this judge's
    expect(kinds(j, { ...b1(201, 'r3', '500'), testKey: false })).toEqual([]);
  });

  it('B3 finding the vendorReference of a simulated B1 failure (mutant "a simulated 500 on B1 still stores the transaction"): a finding', () => {
    const j = new SimulateJudge(10);
    expect(kinds(j, b1(500, 'gone', '500'))).toEqual([]);
    expect(kinds(j, b3(404, 'gone'))).toEqual([]);
    expect(kinds(j, b3(200, 'gone'))).toEqual(['simulate']);
    // once a B1 that ran made it, B3 finds it
    expect(kinds(j, b1(201, 'gone'))).toEqual([]);
    expect(kinds(j, b3(200, 'gone'))).toEqual([]);
  });

  it('a fault rule applied to its next call: no finding; not applied (mutant "the sandbox fault rule is accepted but never applied"): a finding', () => {
    const j = new SimulateJudge(10);
    expect(kinds(j, rule(1))).toEqual([]);
    expect(kinds(j, b1(500, 'x1'))).toEqual([]);
    expect(kinds(j, b1(201, 'x2'))).toEqual([]);
    expect(kinds(j, rule(1))).toEqual([]);
    expect(kinds(j, b1(201, 'x3'))).toEqual(['simulate']);
  });
});

describe('the API log against the calls forwarded (api-log.ts, ADR-056)', () => {
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
  it('an entry with the Origin the call carried: no finding; without it (mutant "the API log drops the Origin"): a finding', () => {
    const j = new ApiLogJudge();
    // a call before the recording started: not in the log
    j.saw('getPartnerTransactionByVendorReference', 'GET', '/api/v1/public/partner/transactions/vendor/r1', 200, undefined);
    j.restart();
    j.saw('getPartnerTransactionByVendorReference', 'GET', '/api/v1/public/partner/transactions/vendor/r1', 200, 'https://a.invalid');
    const ob = { seq: 1, opId: 'sandboxGetApiLog' };
    expect(j.judge(ob, { entries: [entry('https://a.invalid')] })).toEqual([]);
    expect(j.judge(ob, { entries: [entry(null)] }).map((f) => f.kind)).toEqual(['api-log']);
    // a call of the same path without Origin: null is right too
    j.saw('getPartnerTransactionByVendorReference', 'GET', '/api/v1/public/partner/transactions/vendor/r1', 200, undefined);
    expect(j.judge(ob, { entries: [entry(null)] })).toEqual([]);
  });
});
