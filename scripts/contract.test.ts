/**
 * Every constraint of the seed's Limits and field tables is a schema keyword of the
 * bundled documents (or `x-amount-range`, which the contract validator checks as one): for
 * each, a valid example passes and a violating one fails, for both variants where they differ.
 */
import { describe, expect, it } from 'vitest';
import { loadBundledDocument, VARIANTS, type Variant } from '../generated/index.ts';
import { validatorFor } from './lib/schema-validator.ts';
import { objectAt, type Json } from '../lib/json.ts';

const schema = (variant: Variant, name: string) => validatorFor(loadBundledDocument(variant))(`#/components/schemas/${name}`);

const item = { name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPrice: 1299.5, categoryId: 42 };
const partner = { customerPhone: '212612345678', total: 1299.5, currency: 'MAD', items: [item], vendorReference: 'ORDER-1' };
const sessionItems = [{ id: 'SKU-100', name: 'Headphones', price: 649.75, quantity: 2 }];
const session: Record<Variant, Record<string, unknown>> = {
  1: { total: 1299.5, currency: 'MAD', items: sessionItems },
  2: { total: '1299.50', currency: 'MAD', items: sessionItems },
};

type Case = [label: string, patch: (b: Json) => void, valid: boolean];

/** The first item of a request body or record being patched. */
const firstItem = (b: Json) => objectAt(b, 'items', 0);

function check(validate: (v: unknown) => boolean, base: Record<string, unknown>, cases: Case[]) {
  for (const [label, patch, valid] of cases) {
    const body = structuredClone(base);
    patch(body);
    expect(validate(body), `${label} should be ${valid ? 'valid' : 'invalid'}`).toBe(valid);
  }
}

describe.each(VARIANTS)('B1 request (Variant %i)', (variant) => {
  const validate = schema(variant, 'PartnerTransactionCreateRequest');
  it('accepts the base example and every boundary inside the limits', () => {
    check(validate, partner, [
      ['base', () => {}, true],
      ['name of 200 characters', (b) => (firstItem(b).name = 'n'.repeat(200)), true],
      ['reference of 100 characters', (b) => (firstItem(b).reference = 'r'.repeat(100)), true],
      ['quantity 1', (b) => (firstItem(b).quantity = 1), true],
      ['unitPrice 0.01', (b) => (firstItem(b).unitPrice = 0.01), true],
      [
        'no reference, no categoryId, no vendorReference',
        (b) => {
          delete firstItem(b).reference;
          delete firstItem(b).categoryId;
          delete b.vendorReference;
        },
        true,
      ],
      ['categoryId as a long', (b) => (firstItem(b).categoryId = 9007199254740991), true],
    ]);
  });
  it('rejects each violation of the seed limits', () => {
    check(validate, partner, [
      ['a 201-character name', (b) => (firstItem(b).name = 'n'.repeat(201)), false],
      ['a 101-character reference', (b) => (firstItem(b).reference = 'r'.repeat(101)), false],
      ['quantity 0', (b) => (firstItem(b).quantity = 0), false],
      ['quantity 1.5', (b) => (firstItem(b).quantity = 1.5), false],
      ['unitPrice 0', (b) => (firstItem(b).unitPrice = 0), false],
      ['unitPrice with three decimals', (b) => (firstItem(b).unitPrice = 10.005), false],
      ['phone with +', (b) => (b.customerPhone = '+212612345678'), false],
      ['phone with letters', (b) => (b.customerPhone = '21261234567a'), false],
      ['phone starting with 0', (b) => (b.customerPhone = '0612345678'), false],
      ['currency EUR', (b) => (b.currency = 'EUR'), false],
      ['empty items', (b) => (b.items = []), false],
      ['missing customerPhone', (b) => delete b.customerPhone, false],
      ['missing total', (b) => delete b.total, false],
      ['missing currency', (b) => delete b.currency, false],
      ['missing items', (b) => delete b.items, false],
      ['missing item name', (b) => delete firstItem(b).name, false],
      ['total as a string', (b) => (b.total = '1299.50'), false],
      ['server-owned field id', (b) => (b.id = '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10'), false],
      ['server-owned field status', (b) => (b.status = 'APPROVED'), false],
      ['vendorReference of 101 characters', (b) => (b.vendorReference = 'v'.repeat(101)), false],
      ['vendorReference with a slash', (b) => (b.vendorReference = 'a/b'), false],
      ['vendorReference ..', (b) => (b.vendorReference = '..'), false],
    ]);
  });
});

describe.each(VARIANTS)('A1 request (Variant %i)', (variant) => {
  const validate = schema(variant, `SessionRequestV${variant}`);
  const amount = (n: string) => (variant === 1 ? Number(n) : n);
  it('accepts totals from 500 to 15,000 MAD', () => {
    check(validate, session[variant], [
      ['base', () => {}, true],
      ['500', (b) => (b.total = amount('500')), true],
      ['500.00', (b) => (b.total = amount('500.00')), true],
      ['15000', (b) => (b.total = amount('15000')), true],
      ['14999.99', (b) => (b.total = amount('14999.99')), true],
    ]);
  });
  it('rejects totals outside the range, other currencies and bad items', () => {
    check(validate, session[variant], [
      ['499.99', (b) => (b.total = amount('499.99')), false],
      ['15000.01', (b) => (b.total = amount('15000.01')), false],
      ['0', (b) => (b.total = amount('0')), false],
      ['-600', (b) => (b.total = amount('-600')), false],
      ['three decimals', (b) => (b.total = amount('600.001')), false],
      ['currency EUR', (b) => (b.currency = 'EUR'), false],
      ['empty items', (b) => (b.items = []), false],
      ['missing total', (b) => delete b.total, false],
      ['missing currency', (b) => delete b.currency, false],
      ['missing items', (b) => delete b.items, false],
      ['item quantity 0', (b) => (firstItem(b).quantity = 0), false],
      ['item price 0', (b) => (firstItem(b).price = 0), false],
      ['item without id', (b) => delete firstItem(b).id, false],
      ['item name of 201 characters', (b) => (firstItem(b).name = 'n'.repeat(201)), false],
      ['unknown field', (b) => (b.foo = 1), false],
    ]);
  });
  it(`sends total as ${variant === 1 ? 'a number' : 'a decimal string'} only`, () => {
    const other = variant === 1 ? '1299.50' : 1299.5;
    expect(validate({ ...session[variant], total: other })).toBe(false);
  });
});

describe('variant differences', () => {
  it('Variant 1 answers {token, expiresAt}; Variant 2 {session_token, expires_in: 3600, session_id}', () => {
    const v1 = schema(1, 'SessionResponseV1');
    const v2 = schema(2, 'SessionResponseV2');
    expect(v1({ token: 't', expiresAt: '2026-11-20T15:05:09.000Z' })).toBe(true);
    expect(v1({ session_token: 't', expires_in: 3600, session_id: 's' })).toBe(false);
    expect(v2({ session_token: 't', expires_in: 3600, session_id: 's' })).toBe(true);
    expect(v2({ session_token: 't', expires_in: 60, session_id: 's' })).toBe(false);
    expect(v2({ token: 't', expiresAt: '2026-11-20T15:05:09.000Z' })).toBe(false);
  });
  it('A3 exists in Variant 1 only', () => {
    const paths = (v: Variant) => Object.keys(loadBundledDocument(v).paths as object);
    expect(paths(1)).toContain('/api/v1/public/transactions/{transactionId}');
    expect(paths(2)).not.toContain('/api/v1/public/transactions/{transactionId}');
  });
});

describe.each(VARIANTS)('records (Variant %i)', (variant) => {
  const status = schema(variant, 'TransactionStatusRecord');
  const base = {
    status: 'APPROVED',
    transaction_id: '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10',
    payment_intent_id: '0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61',
    amount: 1299.5,
    currency: 'MAD',
    merchant_name: 'Atlas',
    store_name: 'Atlas Casablanca',
    customer_phone: '212612345678',
    created_at: '20/11/26 14:05:09',
    updated_at: '20/11/26 14:06:41',
  };
  it('A2 dates are DD/MM/YY HH:MM:SS and statuses are APPROVED, PENDING or CANCELED', () => {
    check(status, base, [
      ['base', () => {}, true],
      ['PENDING', (b) => (b.status = 'PENDING'), true],
      ['EXPIRED is not reported by A2', (b) => (b.status = 'EXPIRED'), false],
      ['month first 11/20/26', (b) => (b.created_at = '11/20/26 14:05:09'), false],
      ['ISO date', (b) => (b.created_at = '2026-11-20T14:05:09Z'), false],
      ['hour 24', (b) => (b.updated_at = '20/11/26 24:00:00'), false],
    ]);
  });
  it('partner records carry updatedAt null or a date-time, and every status of the state machine', () => {
    const tx = schema(variant, 'PartnerTransaction');
    const doc = loadBundledDocument(variant);
    const example = objectAt(
      doc,
      'paths',
      '/api/v1/public/partner/transactions',
      'post',
      'responses',
      '201',
      'content',
      'application/json',
      'examples',
      'created',
    );
    const value = objectAt(
      typeof example.$ref === 'string' ? objectAt(doc, 'components', 'examples', example.$ref.split('/').pop()!) : example,
      'value',
    );
    check(tx, value, [
      ['created example', () => {}, true],
      [
        'COMPLETED',
        (b) => {
          b.status = 'COMPLETED';
          b.updatedAt = '2026-11-21T10:00:00.000Z';
        },
        true,
      ],
      ['unknown status', (b) => (b.status = 'REFUNDED'), false],
      ['updatedAt missing', (b) => delete b.updatedAt, false],
      ['item reference null', (b) => (firstItem(b).reference = null), true],
      ['orderReference lower case', (b) => (b.orderReference = 'ord-7k2m9q4xab'), false],
    ]);
  });
});
