/**
 * What a merchant reaches: ownership (another merchant's transaction reads exactly as a missing
 * one) and its vendorReferences (unique per merchant, looked up exactly as written, ADR-049).
 */
import { errorCatalog, type ErrorCode } from '../generated/contract.ts';
import { canonicalText } from './same.ts';

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

/**
 * What ownership says of an answer about a known transaction (the proxy's judge):
 * - 'own-404': the merchant reaches it through the operation, yet the answer reads it as missing;
 * - 'other-merchant': the answer shows it (2xx) to a merchant that does not own it;
 * - 'not-reached': the merchant does not reach it and the answer did not show it: the answer says
 *   nothing more of the transaction (its status, its fields);
 * - null: the owner's answer, for the other rules to judge.
 */
export type OwnershipVerdict = 'own-404' | 'other-merchant' | 'not-reached' | null;

/**
 * Ownership judged on an answer (`status`, error `code`) to merchant `merchantId` about `tx` (its
 * merchant and kind as remembered; undefined when not known), through an operation serving `kind`
 * (null: either kind, as the sandbox's moves).
 * Reading as missing is answering exactly `NOT_FOUND`; showing is a success; another merchant's
 * transaction is another merchant's whatever the operation's kind.
 * @judges ownership
 */
export function judgeOwnership(
  tx: Owned | undefined,
  merchantId: string,
  kind: Owned['kind'] | null,
  status: number,
  code: string | undefined,
): OwnershipVerdict {
  if (tx === undefined) return null;
  const mine = reaches(tx, merchantId, null);
  if (status >= 200 && status < 300) return mine ? null : 'other-merchant';
  if (!mine) return 'not-reached';
  const missing = status === NOT_FOUND.status && code === NOT_FOUND.code;
  return missing && reaches(tx, merchantId, kind) ? 'own-404' : null;
}

/**
 * ownership's identical 404: the text two TransactionNotFound bodies are compared by, canonical
 * JSON (member order aside) with each of the request's own values (its id or reference; values
 * shorter than 4 characters left, they would mask unrelated text) written `{}`. Another merchant's
 * transaction and a missing one answer the same text. The suite's check and the proxy's judge.
 * @judges ownership
 */
export function notFoundText(body: string, values: Iterable<string>): string {
  let text = canonicalText(body);
  for (const v of values) if (v.length >= 4) text = text.split(JSON.stringify(v).slice(1, -1)).join('{}');
  return text;
}

/** Whether two vendorReferences name the same order: compared exactly as written (no case folding, no decoding, ADR-049). */
function sameVendorReference(a: string, b: string): boolean {
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

/**
 * What uniqueness says of an answer showing the merchant's transaction `id` with reference `ref`
 * (the proxy's judge):
 * - 'duplicate': B1 created it although the merchant's transaction `holder` already had the
 *   reference: the model's refusal was certain (`vendorReferenceRefusals`), the answer a success;
 * - 'other-reference': a read by reference `asked` answered a transaction with another reference
 *   (a lookup finds the reference exactly as written, `sameVendorReference`);
 * - 'other-holder': a read by the reference showed another transaction than its holder (the one a
 *   reference names is unique per merchant);
 * - null: consistent with what is known (no holder known, or `id` is it).
 */
export type VendorReferenceVerdict = 'duplicate' | 'other-reference' | 'other-holder' | null;

/** An answer showing a transaction: B1's (`created`), or a read by the reference `asked`. */
export interface ReferenceAnswer {
  created: boolean;
  asked?: string;
  id: string;
  ref: string | null;
}

/**
 * vendorReference uniqueness and lookup judged on an answer: `holder` is the merchant's transaction
 * known to hold the reference before it (undefined when none is known, or when memory dropped it).
 * @judges vendor-reference-unique
 */
export function judgeVendorReference(a: ReferenceAnswer, holder: string | undefined): VendorReferenceVerdict {
  if (a.asked !== undefined && (a.ref === null || !sameVendorReference(a.ref, a.asked))) return 'other-reference';
  if (holder === undefined || holder === a.id) return null;
  if (!a.created) return 'other-holder';
  return vendorReferenceRefusals(a.ref, 'yes').includes(null) ? null : 'duplicate';
}
