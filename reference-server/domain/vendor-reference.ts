/** The merchant's own order id on a partner transaction (ADR-011). */
import { errorMessage } from '../../lib/error-messages.ts';
import type { Rejection, TransactionRecord } from './types.ts';

/**
 * Seed rule (B1 409, "vendorReference already exists for this merchant"): a vendorReference is
 * unique per merchant. `existing` is the merchant's transaction with that reference, if any.
 * @rule vendor-reference-unique
 */
export function checkVendorReferenceFree(vendorReference: string | undefined, existing: TransactionRecord | undefined): Rejection | null {
  if (vendorReference === undefined || existing === undefined) return null;
  return { code: 'DUPLICATE_VENDOR_REFERENCE', message: errorMessage('DUPLICATE_VENDOR_REFERENCE', { vendorReference }) };
}
