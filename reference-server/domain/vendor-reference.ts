/** The merchant's own order id on a partner transaction (ADR-011). */
import { errorMessage } from '../../lib/error-messages.ts';
import type { Rejection, TransactionRecord } from './types.ts';

/**
 * The 409 of B1 (seed: "vendorReference already exists for this merchant"), given the
 * merchant's transaction with that reference read under its lock (`existing`), if any. The
 * uniqueness rule itself is `refuseTakenReference`'s (handlers/partner.ts).
 */
export function checkVendorReferenceFree(vendorReference: string | undefined, existing: TransactionRecord | undefined): Rejection | null {
  if (vendorReference === undefined || existing === undefined) return null;
  return { code: 'DUPLICATE_VENDOR_REFERENCE', message: errorMessage('DUPLICATE_VENDOR_REFERENCE', { vendorReference }) };
}
