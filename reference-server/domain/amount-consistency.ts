/** `x-amount-consistency`: a request's total against its lines, in integer centimes. */
import type { ErrorCode } from '../../generated/contract.ts';
import { centimesOf, formatCentimes, sumLines } from '../../lib/money.ts';
import { amountsConsistent } from '../../model/index.ts';
import type { Rejection } from './types.ts';

/** The rule as the spec declares it on a request schema: which fields hold the total and the lines. */
export interface AmountConsistencyRule {
  total: string;
  lines: string;
  price: string;
  quantity: string;
  errorCode: ErrorCode;
}

/**
 * Seed rule (A1 limits, "total equals sum of price x quantity"; 400 AMOUNT_MISMATCH):
 * `body[total]` equals Σ price × quantity over `body[lines]`, compared in centimes.
 * @rule amount-consistency
 */
export function checkAmountConsistency(rule: AmountConsistencyRule, body: Record<string, unknown>): Rejection | null {
  if (amountsConsistent(rule, body)) return null;
  // the answer's message shows both sides
  const total = centimesOf(body[rule.total]);
  const lines = (body[rule.lines] as Array<Record<string, unknown>>).map((l) => ({ price: l[rule.price], quantity: l[rule.quantity] }));
  const sum = sumLines(lines);
  return {
    code: rule.errorCode,
    message: `${rule.total} ${total === null ? String(body[rule.total]) : formatCentimes(total)} differs from the sum of ${rule.price} x ${rule.quantity} over ${rule.lines} (${sum === null ? 'invalid' : formatCentimes(sum)})`,
  };
}
