/** The merchant's own order id on a partner transaction (ADR-011). */
import { errorMessage } from '../../lib/error-messages.ts';
import { vendorReferenceRefusals } from '../../model/index.ts';
import type { Rejection, TransactionRecord } from './types.ts';

/**
 * The 409 of B1 (the model's `vendorReferenceRefusals`), given the merchant's transaction with that
 * reference read under its lock (`existing`), if any, with the message written for the answer.
 * @binds vendor-reference-unique
 */
export function checkVendorReferenceFree(vendorReference: string | undefined, existing: TransactionRecord | undefined): Rejection | null {
  const [r] = vendorReferenceRefusals(vendorReference, existing === undefined ? 'no' : 'yes');
  if (!r || vendorReference === undefined) return null;
  return { code: r.code, message: errorMessage('DUPLICATE_VENDOR_REFERENCE', { vendorReference }) };
}
