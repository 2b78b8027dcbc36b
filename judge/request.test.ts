/** Answers judged against their requests (request.ts), with the contract's compiled request validators. */
import { describe, expect, it } from 'vitest';
import { createJudge } from './index.ts';
import { judgeRequest, type JudgedRequest } from './request.ts';
import { partnerRecord } from './test-support/record.ts';
import { Contract } from './contract.ts';
import { maxBodyBytes } from '../generated/index.ts';

const KEY = { 'x-api-key': 'sk_test_request_judge', 'content-type': 'application/json' };
const a1 = (total: unknown, status: number, json: unknown, variants: (1 | 2)[] = [1], price?: number): JudgedRequest => ({
  contracts: variants.map((v) => Contract.for(v)),
  seq: 1,
  opId: 'createSession',
  params: {},
  search: '',
  headers: KEY,
  body: {
    total,
    currency: 'MAD',
    items: [{ id: 'case-s', name: 'Case', price: price ?? (typeof total === 'number' ? total : 600), quantity: 1 }],
  },
  unreadable: false,
  status,
  json,
});
const refused = (code: string) => ({ error: { code, message: 'x' } });
const kinds = (r: JudgedRequest) => judgeRequest(r).map((f) => `${f.kind} ${String(f.actual)}`);

describe('an answer against its request', () => {
  it('a request the contract refuses, answered 200, is a finding; refused 400, none', () => {
    expect(kinds(a1('600.00', 200, {}))).toEqual(['request 200']);
    expect(kinds(a1('600.00', 400, refused('INVALID_AMOUNT')))).toEqual([]);
  });

  it("a request the contract accepts, refused with a member's code or VALIDATION_ERROR, is a finding; a rule code or the amount range, none", () => {
    expect(kinds(a1(600, 400, refused('INVALID_CURRENCY')))).toEqual(['request INVALID_CURRENCY']);
    expect(kinds(a1(600, 200, {}))).toEqual([]);
    // AMOUNT_MISMATCH for a total equal to its lines: the consistency's code where it holds
    expect(kinds(a1(600, 400, refused('AMOUNT_MISMATCH')))).toEqual(['request AMOUNT_MISMATCH']);
    // VALIDATION_ERROR for a valid request (mutants "a 1-character vendorReference refused", "a transactionId not a
    // version-4 UUID refused"); a list's cursor is the one rule the schema cannot state that it answers
    expect(kinds(a1(600, 400, refused('VALIDATION_ERROR')))).toEqual(['request VALIDATION_ERROR']);
    expect(kinds({ ...a1(600, 400, refused('VALIDATION_ERROR')), search: 'cursor=abc' })).toEqual([]);
    // the amount range is a member rule the schema copies: its refusal is the schema's code
    expect(kinds(a1(15000.01, 400, refused('INVALID_AMOUNT')))).toEqual([]);
  });

  it('while the variant is not known, only what both variants agree on is judged', () => {
    expect(kinds(a1(600, 200, {}, [1, 2]))).toEqual([]);
    expect(kinds(a1('600.00', 200, {}, [1, 2]))).toEqual([]);
    expect(kinds(a1(null, 200, {}, [1, 2]))).toEqual(['request 200']);
  });

  it('the amount rules of the model: the consistency and the range, in their stages (ADR-057)', () => {
    // total 600, lines 700: AMOUNT_MISMATCH (mutant "AMOUNT_MISMATCH not checked" answers 201)
    expect(kinds(a1(600, 201, {}, [1], 700))).toEqual(['request 201']);
    expect(kinds(a1(600, 400, refused('AMOUNT_MISMATCH'), [1], 700))).toEqual([]);
    // mutant "wrong error code": AMOUNT_MISMATCH answered as VALIDATION_ERROR
    expect(kinds(a1(600, 400, refused('VALIDATION_ERROR'), [1], 700))).toEqual(['request VALIDATION_ERROR']);
    // out of the range (a validation range in A1): INVALID_AMOUNT ranks before the consistency
    expect(kinds(a1(15000.01, 400, refused('AMOUNT_MISMATCH'), [1], 600))).toEqual(['request AMOUNT_MISMATCH']);
    expect(kinds(a1(15000.01, 400, refused('INVALID_AMOUNT'), [1], 600))).toEqual([]);
  });

  it("B1's range is a business rule: a 2xx is a finding, any business refusal none", () => {
    const b1 = (total: number, status: number, json: unknown): JudgedRequest => ({
      ...a1(total, status, json),
      opId: 'createPartnerTransaction',
      headers: { 'x-service-key': 'sk_test_request_judge', 'content-type': 'application/json' },
      body: { total, currency: 'MAD', customerPhone: '212612345678', items: [{ name: 'Case', unitPrice: total, quantity: 1 }] },
    });
    expect(kinds(b1(600, 201, {}))).toEqual([]);
    expect(kinds(b1(15000.01, 201, {}))).toEqual(['request 201']);
    expect(kinds(b1(15000.01, 422, refused('AMOUNT_OUT_OF_RANGE')))).toEqual([]);
  });

  it('a member named twice is refused (ADR-023): answered 2xx, a finding', () => {
    const r = a1(600, 200, {});
    const raw = JSON.stringify(r.body).replace('"currency":"MAD"', '"currency":"MAD","currency":"MAD"');
    expect(kinds({ ...r, raw })).toEqual(['request 200']);
    expect(kinds({ ...r, raw: JSON.stringify(r.body) })).toEqual([]);
  });

  it("a request refused at validation, answered with a later stage's code (a lookup's 404), is a finding; an earlier stage's, none", () => {
    const b2 = (id: string, status: number, json: unknown): JudgedRequest => ({
      ...a1(600, status, json),
      opId: 'getPartnerTransaction',
      params: { transactionId: id },
      body: undefined,
    });
    expect(kinds(b2('not-a-uuid', 404, refused('TRANSACTION_NOT_FOUND')))).toEqual(['request TRANSACTION_NOT_FOUND']);
    expect(kinds(b2('not-a-uuid', 401, refused('INVALID_API_KEY')))).toEqual([]);
    expect(kinds(b2('not-a-uuid', 400, refused('VALIDATION_ERROR')))).toEqual([]);
    expect(kinds(b2('01a21aad-1c7f-4a5c-8c4d-0016c5acd55a', 404, refused('TRANSACTION_NOT_FOUND')))).toEqual([]);
  });
});

describe('a refused query parameter named in the details (ADR-022)', () => {
  const list = (details: unknown[]): JudgedRequest => ({
    seq: 1,
    opId: 'sandboxListSms',
    contracts: [Contract.for(1)],
    params: {},
    search: 'limit=0',
    headers: KEY,
    body: undefined,
    unreadable: false,
    status: 400,
    json: { error: { code: 'VALIDATION_ERROR', message: 'x', details } },
  });
  it('details naming the parameter: no finding; naming none of it (mutant "a bad query parameter refused without naming it"): a finding', () => {
    expect(kinds(list([{ path: 'query.limit', message: 'must be >= 1' }]))).toEqual([]);
    expect(kinds(list([{ path: 'query', message: 'must be >= 1' }]))).toEqual(['request query']);
  });
});

describe('x-max-body-bytes counts inclusive', () => {
  it('413 for a body of exactly the limit (mutant "B1 refuses a body of exactly x-max-body-bytes"): a finding; past it, none', () => {
    const b1 = (bytes: number): JudgedRequest => {
      const head = '{"vendorReference":"';
      const raw = `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
      return {
        seq: 1,
        opId: 'createPartnerTransaction',
        contracts: [Contract.for(1)],
        params: {},
        search: '',
        headers: KEY,
        body: JSON.parse(raw) as unknown,
        raw,
        unreadable: false,
        status: 413,
        json: refused('PAYLOAD_TOO_LARGE'),
      };
    };
    expect(kinds(b1(maxBodyBytes))).toEqual(['request PAYLOAD_TOO_LARGE']);
    expect(kinds(b1(maxBodyBytes + 1))).toEqual([]);
  });
  it('a body the ear kept only the start of (a capture limit, a HAR without its text): measured by its Content-Length', () => {
    const cut = (contentLength: string | undefined): JudgedRequest => ({
      seq: 1,
      opId: 'createPartnerTransaction',
      contracts: [Contract.for(1)],
      params: {},
      search: '',
      headers: contentLength === undefined ? KEY : { ...KEY, 'content-length': contentLength },
      body: undefined,
      raw: '{"vendorReference":"xxxx',
      unreadable: true,
      cut: true,
      status: 413,
      json: refused('PAYLOAD_TOO_LARGE'),
    });
    expect(kinds(cut(String(maxBodyBytes)))).toEqual(['request PAYLOAD_TOO_LARGE']);
    expect(kinds(cut(String(maxBodyBytes + 1)))).toEqual([]);
    expect(kinds(cut(undefined))).toEqual([]);
  });
});

describe('a key-authenticated operation answered without its key', () => {
  const T0 = Date.parse('2026-11-24T10:00:00.000Z');
  const rec = partnerRecord(T0);
  const b2 = (headers: Record<string, string>, status: number, body: unknown) => ({
    seq: 2,
    method: 'GET',
    url: `/api/v1/public/partner/transactions/${rec.id as string}`,
    headers,
    status,
    responseHeaders: { 'content-type': 'application/json' },
    responseText: JSON.stringify(body),
    sentAt: T0 + 10,
    receivedAt: T0 + 20,
  });
  const kinds = (headers: Record<string, string>, status: number, body: unknown) =>
    createJudge({ variant: 1 })
      .exchange(b2(headers, status, body))
      .map((f) => `${f.kind}: ${f.message}`);

  it('B2 answered 200 with no key: a finding naming the header; refused 401, or sent with a key: none', () => {
    expect(kinds({}, 200, rec)).toEqual([
      'request: getPartnerTransaction answered 200 to a request without its API key (x-api-key); the contract answers 401',
    ]);
    expect(kinds({}, 401, { error: { code: 'INVALID_API_KEY', message: 'Invalid API key' } })).toEqual([]);
    expect(kinds({ 'x-api-key': 'sk_test_request_judge' }, 200, rec)).toEqual([]);
  });
});
