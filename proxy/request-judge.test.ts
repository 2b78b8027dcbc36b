/** Answers judged against their requests (request-judge.ts), with the contract's compiled request validators. */
import { describe, expect, it } from 'vitest';
import { judgeRequest, type JudgedRequest } from './request-judge.ts';

const KEY = { 'x-api-key': 'sk_test_request_judge', 'content-type': 'application/json' };
const a1 = (total: unknown, status: number, json: unknown, variants: (1 | 2)[] = [1]): JudgedRequest => ({
  seq: 1,
  opId: 'createSession',
  variants,
  params: {},
  search: '',
  headers: KEY,
  body: { total, currency: 'MAD', items: [{ id: 'case-s', name: 'Case', price: typeof total === 'number' ? total : 600, quantity: 1 }] },
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

  it("a request the contract accepts, refused with a member's code, is a finding; a rule code, VALIDATION_ERROR or the amount range, none", () => {
    expect(kinds(a1(600, 400, refused('INVALID_CURRENCY')))).toEqual(['request INVALID_CURRENCY']);
    expect(kinds(a1(600, 200, {}))).toEqual([]);
    expect(kinds(a1(600, 400, refused('AMOUNT_MISMATCH')))).toEqual([]);
    expect(kinds(a1(600, 400, refused('VALIDATION_ERROR')))).toEqual([]);
    // the amount range is a member rule the schema copies: its refusal is the schema's code
    expect(kinds(a1(15000.01, 400, refused('INVALID_AMOUNT')))).toEqual([]);
  });

  it('while the variant is not known, only what both variants agree on is judged', () => {
    expect(kinds(a1(600, 200, {}, [1, 2]))).toEqual([]);
    expect(kinds(a1('600.00', 200, {}, [1, 2]))).toEqual([]);
    expect(kinds(a1(null, 200, {}, [1, 2]))).toEqual(['request 200']);
  });
});
