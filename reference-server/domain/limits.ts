/** The business rules behind B1's 422: amount limits, inactive merchant, credit limit. */
import type { ErrorCode } from '../../generated/contract.ts';
import { centimesOf, formatCentimes } from '../../lib/money.ts';
import type { Rejection, Status } from './types.ts';

/** `x-business-limits` on a request's amount, as the spec declares it (MAD). */
export interface BusinessLimits {
  minimum: number;
  maximum: number;
  code: ErrorCode;
}

/** Seed rule (B1 422, "inactive merchant"): an inactive merchant creates no transaction. */
export function checkMerchantActive(active: boolean): Rejection | null {
  return active ? null : { code: 'MERCHANT_INACTIVE', message: 'Merchant account is not active' };
}

/** Seed rule (B1 422, "amount limits"): the amount lies within the spec's `x-business-limits`, bounds included. */
export function checkBusinessLimits(totalCentimes: number, limits: BusinessLimits): Rejection | null {
  const min = centimesOf(limits.minimum)!;
  const max = centimesOf(limits.maximum)!;
  if (totalCentimes >= min && totalCentimes <= max) return null;
  return { code: limits.code, message: `Amount must be between ${formatCentimes(min)} and ${formatCentimes(max)} MAD` };
}

/** The statuses that hold credit: a transaction the customer may still pay, or has paid. */
function holdsCredit(status: Status): boolean {
  return status === 'PENDING' || status === 'APPROVED';
}

/**
 * Seed rule (B1 422, "credit limit"): the merchant's open transactions (PENDING or APPROVED,
 * read as they are now) plus the new amount stay within its credit limit.
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
