/** The business rules behind B1's 422: amount limits, inactive merchant, credit limit. */
import { errorMessage } from '../../lib/error-messages.ts';
import { formatCentimes } from '../../lib/money.ts';
import type { Rejection, Status } from './types.ts';

/**
 * Seed rule (B1 422, "inactive merchant"): an inactive merchant creates no transaction.
 * @rule b1-merchant-inactive
 */
export function checkMerchantActive(active: boolean): Rejection | null {
  return active ? null : { code: 'MERCHANT_INACTIVE', message: errorMessage('MERCHANT_INACTIVE') };
}

/** The statuses that hold credit: a transaction the customer may still pay, or has paid (the stores index them: `openTransactions`). */
export function holdsCredit(status: Status): boolean {
  return status === 'PENDING' || status === 'APPROVED';
}

/**
 * Seed rule (B1 422, "credit limit"): the merchant's open transactions (PENDING or APPROVED,
 * read as they are now) plus the new amount stay within its credit limit.
 * @rule b1-credit-limit
 */
export function checkCreditLimit(
  open: Iterable<{ status: Status; totalCentimes: number }>,
  totalCentimes: number,
  limitCentimes: number,
): Rejection | null {
  let held = 0;
  for (const t of open) if (holdsCredit(t.status)) held += t.totalCentimes;
  if (held + totalCentimes <= limitCentimes) return null;
  return {
    code: 'CREDIT_LIMIT_EXCEEDED',
    message: `Credit limit exceeded: open transactions ${formatCentimes(held)} + ${formatCentimes(totalCentimes)} > limit ${formatCentimes(limitCentimes)} MAD`,
  };
}
