import { describe, expect, it } from 'vitest';
import { amountRange, checkoutStatusOf, stateMachine, tokenLifetimeSeconds } from '../../generated/contract.ts';
import { checkAmountConsistency } from './amount-consistency.ts';
import { checkCreditLimit, checkMerchantActive } from './limits.ts';
import { inAmountRange } from '../../model/index.ts';
import { isOwnTransaction, isSessionTransaction } from './ownership.ts';
import { attempt } from './stateMachine.ts';
import { isTokenLive, tokenExpiresAt } from './token.ts';
import { newTransaction, type NewTransaction } from './transaction-record.ts';
import { checkoutStatus } from './transactions.ts';
import type { Status, TransactionRecord } from './types.ts';

const T0 = Date.UTC(2026, 10, 20, 14, 5, 9);

const input: NewTransaction = {
  kind: 'partner',
  createdBy: 'createPartnerTransaction',
  merchantId: 'mer_a',
  vendorReference: 'R-1',
  totalCentimes: 129950,
  currency: 'MAD',
  customerPhone: '212612345678',
  items: [{ name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPriceCentimes: 129950, categoryId: 42 }],
  sessionId: null,
  paymentIntentId: null,
  nowMs: T0,
  paymentWindowSeconds: 1800,
};
const tx = (over: Partial<TransactionRecord> = {}): TransactionRecord => ({ ...newTransaction(input), ...over });

describe('transaction record builder', () => {
  it('starts in the creation transition’s status, with an ORD- reference, item ids and the payment window', () => {
    const t = newTransaction(input);
    expect(t.status).toBe(stateMachine.transitions.find((x) => x.id === 'create')!.to);
    expect(t.orderReference).toMatch(/^ORD-[0-9A-Z]{10}$/);
    expect(t.items[0]).toMatchObject({ name: 'Wireless headphones', reference: 'SKU-100', unitPriceCentimes: 129950, categoryId: 42 });
    expect(t.items[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.createdAt).toBe(new Date(T0).toISOString());
    expect(Date.parse(t.expiresAt) - T0).toBe(1800_000);
    expect([t.updatedAt, t.approvedAt, t.expiredAt]).toEqual([null, null, null]);
  });
  it('refuses an operation that creates nothing', () => {
    expect(() => newTransaction({ ...input, createdBy: 'sandboxConfirmTransaction' })).toThrow(/creates no transaction/);
  });
});

describe('ownership', () => {
  it('a merchant reaches only its own transactions of the operation’s kind', () => {
    const t = tx();
    expect(isOwnTransaction(t, 'mer_a', 'partner')).toBe(true);
    expect(isOwnTransaction(t, 'mer_a', null)).toBe(true);
    expect(isOwnTransaction(t, 'mer_b', 'partner')).toBe(false);
    expect(isOwnTransaction(t, 'mer_a', 'checkout')).toBe(false);
    expect(isOwnTransaction(undefined, 'mer_a', null)).toBe(false);
  });
  it('a session token reads only its own session’s transaction', () => {
    const t = tx({ kind: 'checkout', sessionId: 'cs_1' });
    expect(isSessionTransaction(t, { id: 'cs_1' } as never)).toBe(true);
    expect(isSessionTransaction(t, { id: 'cs_2' } as never)).toBe(false);
  });
});

describe('token validity', () => {
  it('accepted strictly before expiresAt, tokenLifetimeSeconds after creation', () => {
    const expiresAt = new Date(tokenExpiresAt(T0)).toISOString();
    expect(Date.parse(expiresAt) - T0).toBe(tokenLifetimeSeconds * 1000);
    expect(isTokenLive({ expiresAt }, Date.parse(expiresAt) - 1)).toBe(true);
    expect(isTokenLive({ expiresAt }, Date.parse(expiresAt))).toBe(false);
  });
});

describe('amount consistency and business limits', () => {
  const rule = { total: 'total', lines: 'items', price: 'unitPrice', quantity: 'quantity', errorCode: 'AMOUNT_MISMATCH' } as const;
  it('total = Σ price × quantity in centimes, else the rule’s code', () => {
    expect(checkAmountConsistency(rule, { total: 1500.3, items: [{ unitPrice: 500.1, quantity: 3 }] })).toBeNull();
    expect(checkAmountConsistency(rule, { total: 1500, items: [{ unitPrice: 500.1, quantity: 3 }] })).toEqual({
      code: 'AMOUNT_MISMATCH',
      message: 'total 1500.00 differs from the sum of unitPrice x quantity over items (1500.30)',
    });
  });
  it('amount limits include their bounds; inactive merchant; credit limit over open transactions only', () => {
    for (const inside of [500, '500.00', 15000, '15000.00', 7250.5]) expect(inAmountRange(inside, amountRange)).toBe(true);
    for (const outside of [499.99, '499.99', 15000.01, '15000.01', 0, 'abc', null, 500.001])
      expect(inAmountRange(outside, amountRange)).toBe(false);
    expect(checkMerchantActive(true)).toBeNull();
    expect(checkMerchantActive(false)?.code).toBe('MERCHANT_INACTIVE');
    const open = (['PENDING', 'APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'] as Status[]).map((status) => ({
      status,
      totalCentimes: 100000,
    }));
    expect(checkCreditLimit(open, 100000, 300000)).toBeNull();
    expect(checkCreditLimit(open, 100001, 300000)).toEqual({
      code: 'CREDIT_LIMIT_EXCEEDED',
      message: 'Credit limit exceeded: open transactions 2000.00 + 1000.01 > limit 3000.00 MAD',
    });
  });
});

describe('state-machine rejections and the ADR-008 mapping', () => {
  it('paying a session whose transaction is not PENDING, and leaving a paid session, are the spec’s rejections', () => {
    for (const from of ['APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'] as const) {
      expect(attempt('sandboxPaySession', from, { now: T0, outcome: 'success' })).toEqual({
        ok: false,
        kind: 'rejected',
        status: 400,
        code: 'TRANSACTION_NOT_PENDING',
        message: `Transaction is not in PENDING status (current status: ${from})`,
      });
    }
    for (const from of ['APPROVED', 'COMPLETED'] as const) {
      expect(attempt('sdkCancelPaymentIntent', from, { now: T0 })).toMatchObject({
        kind: 'rejected',
        code: 'TRANSACTION_NOT_PENDING',
        message: `Transaction is not in PENDING status (current status: ${from})`,
      });
    }
    for (const from of ['PENDING', 'CANCELED', 'EXPIRED'] as const)
      expect(attempt('sdkCancelPaymentIntent', from, { now: T0 })).toEqual({ ok: false, kind: 'none' });
    expect(attempt('sandboxCompleteTransaction', 'PENDING', { now: T0 })).toMatchObject({
      code: 'TRANSACTION_NOT_APPROVED',
      message: 'Transaction is not in APPROVED status (current status: PENDING)',
    });
  });
  it('checkoutStatus is the generated checkoutStatusOf', () => {
    for (const s of Object.keys(stateMachine.states) as Status[]) expect(checkoutStatus(s)).toBe(checkoutStatusOf[s]);
    expect(checkoutStatus('EXPIRED')).toBe('CANCELED');
    expect(checkoutStatus('COMPLETED')).toBe('APPROVED');
  });
});
