/**
 * What a merchant reaches: ownership (another merchant's transaction reads exactly as a missing
 * one) and its vendorReferences (unique per merchant, looked up exactly as written, ADR-049).
 */
import { errorCatalog, type ErrorCode } from '../generated/contract.ts';

/** A refusal: the one HTTP status the error catalogue gives `code`. */
export interface Refusal {
  status: number;
  code: ErrorCode;
}

/** The refusal with `code`, at its catalogue status. */
export function refusal(code: ErrorCode): Refusal {
  const entry = errorCatalog[code];
  if (!entry) throw new Error(`model: ${code} is not in the error catalogue`);
  return { status: entry.status, code };
}

/** What ownership needs of a transaction: its merchant and its kind. */
export interface Owned {
  merchantId: string;
  kind: 'partner' | 'checkout';
}

/**
 * Whether the merchant `merchantId` reaches `tx` through an operation serving `kind` (null: either
 * kind). Anything else reads as missing: `NOT_FOUND`.
 * @rule ownership
 */
export function reaches<T extends Owned>(tx: T | undefined, merchantId: string, kind: Owned['kind'] | null): tx is T {
  return tx !== undefined && tx.merchantId === merchantId && (kind === null || tx.kind === kind);
}

/** The answer to a transaction a merchant does not reach (missing or another merchant's: identical, B2–B4, A3). */
export const NOT_FOUND: Refusal = refusal('TRANSACTION_NOT_FOUND');

/** Whether two vendorReferences name the same order: compared exactly as written (no case folding, no decoding, ADR-049). */
export function sameVendorReference(a: string, b: string): boolean {
  return a === b;
}

/**
 * The merchant's transaction a vendorReference lookup finds among `own` (the merchant's own
 * transactions only: another merchant's same reference is never found), undefined when none.
 */
export function lookupVendorReference<T extends { vendorReference: string | null }>(own: Iterable<T>, ref: string): T | undefined {
  for (const t of own) if (t.vendorReference !== null && sameVendorReference(t.vendorReference, ref)) return t;
  return undefined;
}

/**
 * B1's answer on the reference: 409 DUPLICATE_VENDOR_REFERENCE when the merchant already holds a
 * transaction with it ('yes'), none when it certainly does not ('no'), either when the model
 * cannot know ('maybe': an earlier create's answer was lost). Absent reference: never refused.
 * @rule vendor-reference-unique
 */
export function vendorReferenceRefusals(ref: string | undefined | null, taken: 'yes' | 'no' | 'maybe'): Array<Refusal | null> {
  if (ref === undefined || ref === null || taken === 'no') return [null];
  return taken === 'yes' ? [refusal('DUPLICATE_VENDOR_REFERENCE')] : [null, refusal('DUPLICATE_VENDOR_REFERENCE')];
}
