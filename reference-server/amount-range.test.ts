/**
 * The amount range (`x-amount-range`) answers the same in both variants: Variant 1's JSON
 * Schema `minimum`/`maximum` failure and Variant 2's server-side check of a decimal string
 * both give 400 INVALID_AMOUNT `total must be between 500.00 and 15000.00 MAD`; B1 gives the
 * same message as its 422 business rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountRange } from '../generated/contract.ts';
import { errorOf, partnerBody, item, server, sessionBodyV1, sessionBodyV2 } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

const MESSAGE = 'total must be between 500.00 and 15000.00 MAD';
const RULE = 'must be between 500.00 and 15000.00 MAD';

let s: TestServer;
let api: Api;
let keyOf: (variant: 1 | 2) => string;
beforeAll(async () => {
  ({ s, api } = await server());
  keyOf = (variant) => s.merchants.find((m) => m.variant === variant)!.apiKey;
});
afterAll(() => s.close());

const oneLine = (price: number) => [{ id: 'SKU-1', name: 'Headphones', price, quantity: 1 }];
const session = (variant: 1 | 2, body: unknown) =>
  api('POST', '/api/v1/public/sessions', { headers: { 'X-API-Key': keyOf(variant) }, json: body });

describe('A1 total outside the amount range', () => {
  it('the message is built from the one statement of the range', () => {
    expect(amountRange).toMatchObject({ minimum: 500, maximum: 15000, currency: 'MAD', rule: RULE });
  });

  it.each([
    [1, 499.99],
    [1, 15000.01],
    [1, 100],
    [2, '499.99'],
    [2, '15000.01'],
    [2, '100.00'],
    [2, '0'],
    [2, '99999999999999999999.99'],
  ] as const)('Variant %s total %s → 400 INVALID_AMOUNT with the range message', async (variant, total) => {
    const r = await session(variant, { total, currency: 'MAD', items: oneLine(1299.5) });
    expect(r.status, r.text).toBe(400);
    expect(errorOf(r)).toEqual({ code: 'INVALID_AMOUNT', message: MESSAGE, details: [{ path: '/total', message: RULE }] });
  });

  it.each([
    [1, 500],
    [1, 15000],
    [2, '500'],
    [2, '500.00'],
    [2, '15000.00'],
  ] as const)('Variant %s total %s (a bound) is accepted', async (variant, total) => {
    const r = await session(variant, { total, currency: 'MAD', items: oneLine(Number(total)) });
    expect(r.status, r.text).toBe(200);
  });

  it('the range is answered before the Σ items check, in both variants', async () => {
    for (const [variant, body] of [
      [1, sessionBodyV1({ total: 100 })],
      [2, sessionBodyV2({ total: '100.00' })],
    ] as const) {
      const r = await session(variant, body);
      expect(r.status, r.text).toBe(400);
      expect(errorOf(r).message).toBe(MESSAGE);
    }
  });

  it('Variant 2: a string that is not a decimal amount still fails the pattern (INVALID_AMOUNT, no range message)', async () => {
    for (const total of ['1299.505', '12a', '-600', '0600']) {
      const r = await session(2, sessionBodyV2({ total }));
      expect(r.status, `${total}: ${r.text}`).toBe(400);
      expect(errorOf(r).code).toBe('INVALID_AMOUNT');
      expect(errorOf(r).message).not.toBe(MESSAGE);
      expect(errorOf(r).message).not.toMatch(/\[5-9\]/);
    }
  });
});

describe('B1 total outside the amount range', () => {
  it('→ 422 AMOUNT_OUT_OF_RANGE with the same message', async () => {
    for (const total of [499.99, 15000.01]) {
      const r = await api('POST', '/api/v1/public/partner/transactions', {
        headers: { 'X-Service-Key': keyOf(1) },
        json: partnerBody({ total, items: [item(total)] }),
      });
      expect(r.status, r.text).toBe(422);
      expect(errorOf(r)).toEqual({ code: 'AMOUNT_OUT_OF_RANGE', message: MESSAGE });
    }
  });
});
