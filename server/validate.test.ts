/**
 * The compiled checks as plain functions (server/validate.ts): the declared refusal of a request
 * as a value (codes ADR-002/022/057, details as the router answers them), a response's failure,
 * every format the documents use registered, one compilation per variant.
 */
import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { TX } from './test-support/transaction.ts';
import { compiledContract, contractAjv, validateRequest, validateResponse } from './validate.ts';

const TX_ID = TX.id;
const line = { id: 'a', name: 'A', price: 600, quantity: 1 };
const session1 = { total: 600, currency: 'MAD', items: [line] };

const codeOf = (e: ReturnType<typeof validateRequest>) => e && [e.status, e.code, e.details?.map((d) => d.path)];

describe('validateRequest', () => {
  it('accepts a valid request of each variant (null)', () => {
    expect(validateRequest(1, 'createSession', { body: session1 })).toBeNull();
    expect(validateRequest(2, 'createSession', { body: { ...session1, total: '600.00' } })).toBeNull();
    expect(validateRequest(1, 'getPartnerTransaction', { params: { transactionId: TX_ID } })).toBeNull();
  });

  it("answers a failing member's x-error-code, the best-ranked one first (ADR-002, ADR-057)", () => {
    expect(codeOf(validateRequest(1, 'createSession', { body: { ...session1, currency: 'EUR' } }))).toEqual([
      400,
      'INVALID_CURRENCY',
      ['/currency'],
    ]);
    const both = validateRequest(1, 'createSession', { body: { ...session1, currency: 'EUR', items: [] } });
    expect(codeOf(both)).toEqual([400, 'INVALID_CURRENCY', ['/currency', '/items']]);
    expect(both?.message).toBe('currency must be equal to one of the allowed values: MAD');
    const missing = validateRequest(1, 'createSession', { body: { currency: 'MAD', items: [line] } });
    expect([missing?.code, missing?.message]).toEqual(['INVALID_AMOUNT', "total must have required property 'total'"]);
  });

  it('refuses an undeclared or empty query parameter alone (ADR-022), converts and checks declared ones', () => {
    const undeclared = validateRequest(1, 'getPartnerTransaction', { params: { transactionId: 'nope' }, query: { debug: '1' } });
    expect([undeclared?.code, undeclared?.details]).toEqual([
      'VALIDATION_ERROR',
      [{ path: 'query.debug', message: "Unknown query parameter 'debug'" }],
    ]);
    expect(codeOf(validateRequest(1, 'sandboxListSms', { query: { limit: '' } }))).toEqual([400, 'VALIDATION_ERROR', ['query.limit']]);
    const query: Record<string, unknown> = { limit: '5' };
    expect(validateRequest(1, 'sandboxListSms', { query })).toBeNull();
    expect(query.limit).toBe(5);
    expect(codeOf(validateRequest(1, 'sandboxListSms', { query: { limit: '1.5' } }))).toEqual([400, 'VALIDATION_ERROR', ['query.limit']]);
    expect(codeOf(validateRequest(1, 'sandboxListSms', { query: { limit: '0' } }))).toEqual([400, 'VALIDATION_ERROR', ['query.limit']]);
    expect(codeOf(validateRequest(1, 'sandboxListSms', { query: { limit: ['1', '2'] } }))).toEqual([
      400,
      'VALIDATION_ERROR',
      ['query.limit'],
    ]);
  });

  it('checks path parameters and declared headers (lower-case names, as node gives them)', () => {
    expect(codeOf(validateRequest(2, 'getPartnerTransaction', { params: { transactionId: 'nope' } }))).toEqual([
      400,
      'VALIDATION_ERROR',
      ['path.transactionId'],
    ]);
    const header = validateRequest(1, 'getPartnerTransaction', {
      params: { transactionId: TX_ID },
      headers: { 'paylater-simulate': '418' },
    });
    expect(codeOf(header)).toEqual([400, 'VALIDATION_ERROR', ['header.paylater-simulate']]);
    expect(
      validateRequest(1, 'getPartnerTransaction', { params: { transactionId: TX_ID }, headers: { 'paylater-simulate': '503' } }),
    ).toBeNull();
  });

  it('refuses an amount with more than two decimals through the mad format (ADR-021)', () => {
    const r = validateRequest(1, 'createSession', { body: { ...session1, total: 600.001 } });
    expect(codeOf(r)).toEqual([400, 'INVALID_AMOUNT', ['/total']]);
  });

  it('throws for an operation the variant does not have (a programming error, not a request error)', () => {
    expect(() => validateRequest(2, 'verifyTransaction', {})).toThrow(/verifyTransaction is not an operation of Variant 2/);
  });
});

describe('validateResponse', () => {
  const tx = TX;
  it('accepts a declared status with a body of its schema, error answers included', () => {
    expect(validateResponse(1, 'getPartnerTransaction', 200, tx)).toBeNull();
    expect(validateResponse(1, 'getPartnerTransaction', 404, { error: { code: 'TRANSACTION_NOT_FOUND', message: 'x' } })).toBeNull();
  });
  it('names what breaks the contract: a member, an undeclared status, a missing body', () => {
    expect(validateResponse(1, 'getPartnerTransaction', 200, { ...tx, totalAmount: 'six' })?.message).toMatch(
      /\/response\/totalAmount must be number/,
    );
    expect(validateResponse(1, 'getPartnerTransaction', 418, tx)?.message).toMatch(/no schema defined for status code '418'/);
    expect(validateResponse(1, 'getPartnerTransaction', 200, undefined)?.message).toBe('response body required.');
    // a stream's content is not JSON: not checked here
    expect(validateResponse(1, 'sandboxStreamEvents', 200, undefined)).toBeNull();
  });
});

describe('the compiled contract', () => {
  it('is compiled once per variant, and once per derived document function', () => {
    expect(compiledContract(1)).toBe(compiledContract(1));
    const derive = (d: Record<string, unknown>) => d;
    expect(compiledContract(1, derive)).toBe(compiledContract(1, derive));
    expect(compiledContract(1, derive)).not.toBe(compiledContract(1));
    expect(compiledContract(2).operations.size).toBeGreaterThan(0);
  });

  it('registers every format the documents use (an unknown one would be ignored by ajv, not enforced)', () => {
    const formats = new Set<string>();
    const walk = (n: unknown): void => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object')
        for (const [k, v] of Object.entries(n)) {
          if (k === 'format' && typeof v === 'string') formats.add(v);
          else walk(v);
        }
    };
    walk(loadBundledDocument(1));
    walk(loadBundledDocument(2));
    expect([...formats].sort()).toEqual(['date-time', 'int64', 'mad', 'uri', 'uuid']);
    const ajv = contractAjv();
    const bad: Record<string, unknown> = { 'date-time': 'yesterday', uuid: 'x', uri: 'not a uri', int64: 1.5, mad: 1.001 };
    const good: Record<string, unknown> = {
      'date-time': '2026-01-01T00:00:00Z',
      uuid: TX_ID,
      uri: 'https://x.test/a',
      int64: 2,
      mad: 1.25,
    };
    for (const f of formats) {
      const check = ajv.compile({ format: f });
      expect([check(good[f]), check(bad[f])], f).toEqual([true, false]);
    }
  });
});
