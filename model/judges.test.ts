/**
 * The proxy's judges of ownership, vendorReference uniqueness and expiry, as the model holds them:
 * one answer and what is remembered in, a verdict out. Expectations are the contract's words (the
 * error catalogue's 404, the payment window's end reached AT its instant, ADR-010), not the code's.
 */
import { describe, expect, it } from 'vitest';
import { errorCatalog } from '../generated/contract.ts';
import { EXPIRY, at, expiryInstantAllowed, judgeExpiry, judgeOwnership, judgeVendorReference, notFoundText, type Status } from './index.ts';

const notFound = { status: errorCatalog.TRANSACTION_NOT_FOUND.status, code: 'TRANSACTION_NOT_FOUND' };
const partnerOfA = { merchantId: 'a', kind: 'partner' as const };
const checkoutOfA = { merchantId: 'a', kind: 'checkout' as const };

describe('judgeOwnership', () => {
  it('another merchant shown the transaction: other-merchant; the owner: nothing', () => {
    expect(judgeOwnership(partnerOfA, 'b', null, 200, undefined)).toBe('other-merchant');
    expect(judgeOwnership(checkoutOfA, 'b', 'checkout', 200, undefined)).toBe('other-merchant');
    expect(judgeOwnership(partnerOfA, 'a', null, 200, undefined)).toBeNull();
    // the other kind shown to its owner is not another merchant's
    expect(judgeOwnership(checkoutOfA, 'a', 'partner', 200, undefined)).toBeNull();
  });
  it("the owner answered exactly the missing transaction's 404 through an operation serving its kind: own-404", () => {
    expect(judgeOwnership(partnerOfA, 'a', 'partner', notFound.status, notFound.code)).toBe('own-404');
    expect(judgeOwnership(checkoutOfA, 'a', null, notFound.status, notFound.code)).toBe('own-404');
    // B2–B4 see partner transactions only (ADR-019): a checkout one reads as missing
    expect(judgeOwnership(checkoutOfA, 'a', 'partner', notFound.status, notFound.code)).toBeNull();
    // another 404 code is not the missing transaction's answer
    expect(judgeOwnership(partnerOfA, 'a', 'partner', 404, 'ROUTE_NOT_FOUND')).toBeNull();
  });
  it('a refusal to another merchant tells nothing of the transaction; one not remembered is not judged', () => {
    expect(judgeOwnership(partnerOfA, 'b', 'partner', notFound.status, notFound.code)).toBe('not-reached');
    expect(judgeOwnership(partnerOfA, 'b', 'partner', 400, 'TRANSACTION_NOT_PENDING')).toBe('not-reached');
    expect(judgeOwnership(undefined, 'a', 'partner', notFound.status, notFound.code)).toBeNull();
  });
});

describe('judgeVendorReference', () => {
  it('B1 created a transaction with a reference another of the merchant holds: duplicate', () => {
    expect(judgeVendorReference({ created: true, id: 't2', ref: 'order-1' }, 't1')).toBe('duplicate');
    expect(judgeVendorReference({ created: true, id: 't2', ref: 'order-1' }, undefined)).toBeNull();
    expect(judgeVendorReference({ created: true, id: 't1', ref: 'order-1' }, 't1')).toBeNull();
    expect(judgeVendorReference({ created: true, id: 't2', ref: null }, undefined)).toBeNull();
  });
  it('a read by the reference: exactly the reference asked (ADR-049), and its holder', () => {
    expect(judgeVendorReference({ created: false, asked: 'order-1', id: 't1', ref: 'ORDER-1' }, undefined)).toBe('other-reference');
    expect(judgeVendorReference({ created: false, asked: 'order-1', id: 't1', ref: null }, undefined)).toBe('other-reference');
    expect(judgeVendorReference({ created: false, asked: 'order-1', id: 't2', ref: 'order-1' }, 't1')).toBe('other-holder');
    expect(judgeVendorReference({ created: false, asked: 'order-1', id: 't1', ref: 'order-1' }, 't1')).toBeNull();
  });
});

describe('judgeExpiry', () => {
  const end = at(1_000_000);
  const sight = (shown: Status[], before: Status[], from: number, to: number, latest = to) => ({
    shown,
    before,
    during: { from, to },
    latest,
    expiresAt: end,
  });
  const [pending] = EXPIRY.from;
  it('still in the status the expiry moves from once the window certainly passed: late (reached AT its end)', () => {
    expect(judgeExpiry(sight([pending!], [pending!], 1_000_000, 1_000_010)).late).toBe(true);
    expect(judgeExpiry(sight([pending!], [pending!], 999_999, 1_000_010)).late).toBe(false);
    // the slack widens the exchange: the window may not have passed yet
    expect(judgeExpiry(sight([pending!], [pending!], 1_000_050, 1_000_060), 100).late).toBe(false);
  });
  it('expired from PENDING though the window cannot have passed by the answer’s end: early', () => {
    expect(judgeExpiry(sight([EXPIRY.to], [pending!], 900_000, 900_010)).early).toBe(true);
    // a change stamped later than the exchange (a sandbox clock advanced since) may have passed it
    expect(judgeExpiry(sight([EXPIRY.to], [pending!], 900_000, 900_010, 1_000_000)).early).toBe(false);
    expect(judgeExpiry(sight([EXPIRY.to], [pending!], 999_950, 999_960), 100).early).toBe(false);
  });
  it('a refusal leaving several statuses: EXPIRED among them only once the window may have passed', () => {
    expect(judgeExpiry(sight([pending!, EXPIRY.to], [pending!], 900_000, 900_010)).possible).toEqual([pending]);
    expect(judgeExpiry(sight([pending!, EXPIRY.to], [pending!], 1_000_000, 1_000_010)).possible).toEqual([pending, EXPIRY.to]);
  });
});

describe('notFoundText (the identical 404)', () => {
  const body = (id: string, order: 'code-first' | 'message-first') =>
    order === 'code-first'
      ? `{"error":{"code":"TRANSACTION_NOT_FOUND","message":"Transaction ${id} not found"}}`
      : `{"error":{"message":"Transaction ${id} not found","code":"TRANSACTION_NOT_FOUND"}}`;
  it("a missing transaction and another merchant's read the same, each its own id aside, whatever the member order", () => {
    expect(notFoundText(body('tx-missing-1', 'code-first'), ['tx-missing-1'])).toBe(
      notFoundText(body('tx-of-b-22', 'message-first'), ['tx-of-b-22']),
    );
  });
  it('another message, or the id left in, reads differently; a value under 4 characters masks nothing', () => {
    const missing = notFoundText('{"error":{"code":"TRANSACTION_NOT_FOUND","message":"Transaction not found"}}', ['tx-1']);
    expect(notFoundText('{"error":{"code":"TRANSACTION_NOT_FOUND","message":"No such transaction"}}', ['tx-2'])).not.toBe(missing);
    expect(notFoundText(body('tx-missing-1', 'code-first'), [])).not.toBe(notFoundText(body('tx-other-22', 'code-first'), []));
    expect(notFoundText('{"error":{"code":"TRANSACTION_NOT_FOUND","message":"Transaction not found"}}', ['a'])).toBe(missing);
  });
});

describe('expiryInstantAllowed (ADR-010)', () => {
  const created = at(Date.parse('2026-11-27T10:00:00.000Z'));
  const end = created.from + 1800 * 1000;
  it('the end of the payment window exactly; a read noticing it later, or earlier, is not', () => {
    expect(expiryInstantAllowed(created, 1800, end)).toBe(true);
    expect(expiryInstantAllowed(created, 1800, end + 1)).toBe(false);
    expect(expiryInstantAllowed(created, 1800, end - 1)).toBe(false);
  });
  it('within the slack, and within a creation known only as an interval', () => {
    expect(expiryInstantAllowed(created, 1800, end + 5, 5)).toBe(true);
    expect(expiryInstantAllowed({ from: created.from, to: created.from + 20 }, 1800, end + 20)).toBe(true);
  });
});
