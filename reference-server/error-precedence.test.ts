/**
 * Error precedence (ADR-057, `x-error-precedence` of `ErrorCode`): a request that fails several
 * ways gets one code, the same whatever the order of its members or of the validator's walk.
 * Stages: authentication, then the body (size, media type), then request validation (the code
 * first in `members` among the failing members', the A1 amount range included), then the
 * consistency rule, then B1's business rules in their order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorPrecedence, firstByPrecedence, maxBodyBytes } from '../generated/contract.ts';
import { errorOf, item, partnerBody, server, sessionBodyV1, sessionBodyV2 } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

const INACTIVE_KEY = 'sk_test_inactive_0123456789abcdef';
let s: TestServer;
let api: Api;
let keyOf: (variant: 1 | 2) => string;
beforeAll(async () => {
  ({ s, api } = await server());
  keyOf = (variant) => s.merchants.find((m) => m.variant === variant)!.apiKey;
});
afterAll(() => s.close());

const session = (variant: 1 | 2, body: unknown, headers: Record<string, string> = { 'X-API-Key': keyOf(variant) }) =>
  api('POST', '/api/v1/public/sessions', { headers, json: body });
const partner = (body: unknown, key = keyOf(1)) =>
  api('POST', '/api/v1/public/partner/transactions', { headers: { 'X-Service-Key': key }, json: body });

/** The same members in the reverse order: the answer may not depend on it. */
const reversed = (b: Record<string, unknown>) => Object.fromEntries(Object.entries(b).reverse());
const badLine = { id: 'SKU-1', name: 'Headphones', price: 0, quantity: 1 };

describe('A1: several failing members answer the code first in x-error-precedence members', () => {
  it('the spec orders the seed codes before VALIDATION_ERROR', () => {
    expect(errorPrecedence.members).toEqual(['INVALID_AMOUNT', 'INVALID_CURRENCY', 'INVALID_ITEMS', 'VALIDATION_ERROR']);
  });

  it('firstByPrecedence (generated, used by the server and the suite): members order, unlisted codes last, ties in the given order', () => {
    const code = (x: { code: string }) => x.code;
    expect(firstByPrecedence(['VALIDATION_ERROR', 'INVALID_ITEMS', 'INVALID_CURRENCY'], (c) => c)).toBe('INVALID_CURRENCY');
    expect(firstByPrecedence(['NOT_LISTED', 'VALIDATION_ERROR'], (c) => c)).toBe('VALIDATION_ERROR');
    expect(firstByPrecedence(['NOT_LISTED', 'ALSO_NOT'], (c) => c)).toBe('NOT_LISTED');
    const a = { code: 'INVALID_ITEMS', n: 1 };
    const b = { code: 'INVALID_ITEMS', n: 2 };
    expect(firstByPrecedence([a, { code: 'VALIDATION_ERROR', n: 0 }, b], code)).toBe(a);
    expect(() => firstByPrecedence([], code)).toThrow(/no items/);
  });

  // [variant, what fails, expected code, body, the failing member paths in details]
  const cases: Array<[1 | 2, string, string, Record<string, unknown>, string[]]> = [
    [
      1,
      'total 0 (schema) + an item price 0',
      'INVALID_AMOUNT',
      { total: 0, currency: 'MAD', items: [badLine] },
      ['/total', '/items/0/price'],
    ],
    [
      2,
      'total "0" (range only) + an item price 0',
      'INVALID_AMOUNT',
      { total: '0', currency: 'MAD', items: [badLine] },
      ['/total', '/items/0/price'],
    ],
    [
      1,
      'total out of range + an item price 0',
      'INVALID_AMOUNT',
      { total: 100, currency: 'MAD', items: [badLine] },
      ['/total', '/items/0/price'],
    ],
    [
      2,
      'total "100.00" out of range + currency EUR',
      'INVALID_AMOUNT',
      sessionBodyV2({ total: '100.00', currency: 'EUR' }),
      ['/total', '/currency'],
    ],
    [1, 'currency EUR + items empty', 'INVALID_CURRENCY', sessionBodyV1({ currency: 'EUR', items: [] }), ['/currency', '/items']],
    [2, 'items empty + an unknown member', 'INVALID_ITEMS', sessionBodyV2({ items: [], coupon: 'X' }), ['/items']],
    [1, 'an unknown member + total missing', 'INVALID_AMOUNT', { currency: 'MAD', items: sessionBodyV1().items, coupon: 'X' }, []],
  ];
  it.each(cases)('Variant %s, %s → %s, in either member order', async (variant, _what, code, body, paths) => {
    for (const b of [body, reversed(body)]) {
      const r = await session(variant, b);
      expect(r.status, r.text).toBe(400);
      const e = errorOf(r);
      expect(e.code, r.text).toBe(code);
      const failing = (e.details ?? []).map((d) => d.path);
      for (const p of paths) expect(failing, r.text).toContain(p);
      // the message names the winning member: the first detail
      expect(e.details?.[0]?.path.replace(/^\//, '').replace(/\//g, '.'), r.text).toBe(e.message.split(' ')[0]);
    }
  });

  it('a schema failure is answered before AMOUNT_MISMATCH (consistency runs on a valid body only)', async () => {
    const r = await session(1, sessionBodyV1({ total: 1000, currency: 'EUR' }));
    expect(errorOf(r).code, r.text).toBe('INVALID_CURRENCY');
  });
});

describe('stages: authentication, body, validation, consistency, business', () => {
  it('a bad key with an invalid body → 401', async () => {
    const r = await session(1, { total: 0, currency: 'EUR', items: [] }, { 'X-API-Key': 'sk_test_nobody_0123456789abcdef' });
    expect(r.status, r.text).toBe(401);
    expect(errorOf(r).code).toBe('INVALID_API_KEY');
  });

  it('an oversized invalid body → 413; an invalid body sent as text/plain → 415', async () => {
    const big = JSON.stringify({ total: 0, currency: 'EUR', items: [], pad: 'x'.repeat(maxBodyBytes) });
    const r = await api('POST', '/api/v1/public/sessions', {
      headers: { 'X-API-Key': keyOf(1), 'Content-Type': 'application/json' },
      raw: big,
    });
    expect(r.status, r.text).toBe(413);
    expect(errorOf(r).code).toBe('PAYLOAD_TOO_LARGE');
    const t = await api('POST', '/api/v1/public/sessions', {
      headers: { 'X-API-Key': keyOf(1), 'Content-Type': 'text/plain' },
      raw: JSON.stringify({ total: 0, currency: 'EUR', items: [] }),
    });
    expect(t.status, t.text).toBe(415);
    expect(errorOf(t).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('B1: a schema failure before the 422 amount range; AMOUNT_MISMATCH before it too', async () => {
    const phone = await partner(partnerBody({ customerPhone: '+212612345678', total: 100, items: [item(100)] }));
    expect(phone.status, phone.text).toBe(400);
    expect(errorOf(phone).code).toBe('VALIDATION_ERROR');
    const mismatch = await partner(partnerBody({ total: 100, items: [item(99)] }));
    expect(errorOf(mismatch).code, mismatch.text).toBe('AMOUNT_MISMATCH');
    const range = await partner(partnerBody({ total: 100, items: [item(100)] }));
    expect(errorOf(range).code, range.text).toBe('AMOUNT_OUT_OF_RANGE');
  });

  it('B1: MERCHANT_INACTIVE before AMOUNT_OUT_OF_RANGE', async () => {
    const { s: p, api: a } = await server({
      merchants: [{ name: 'Closed', storeName: 'C', apiKey: INACTIVE_KEY, variant: 1, active: false }],
    });
    try {
      const r = await a('POST', '/api/v1/public/partner/transactions', {
        headers: { 'X-Service-Key': INACTIVE_KEY },
        json: partnerBody({ total: 100, items: [item(100)] }),
      });
      expect(r.status, r.text).toBe(422);
      expect(errorOf(r).code).toBe('MERCHANT_INACTIVE');
    } finally {
      await p.close();
    }
  });
});
