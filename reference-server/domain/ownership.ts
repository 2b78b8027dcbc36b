/** Who may read or change a transaction: the model's ownership (model/merchant.ts) on the stored record. */
import { reaches } from '../../model/index.ts';
import type { SessionRecord, TransactionKind, TransactionRecord } from './types.ts';

/**
 * A merchant reaches only its own transactions, of the kind the operation serves (`null`: either);
 * anything else reads as missing (the model's `reaches` on the stored record).
 * @binds ownership
 */
export function isOwnTransaction(
  tx: TransactionRecord | undefined,
  merchantId: string,
  kind: TransactionKind | null,
): tx is TransactionRecord {
  return reaches(tx, merchantId, kind);
}

/**
 * Seed rule (A2: 401 INVALID_SESSION_TOKEN for a token "not matching the transaction"): a
 * session token reads only the checkout transaction paid through its own session.
 * Ownership by the session's merchant (`isOwnTransaction`) is checked first. The answer (401)
 * is A2's handler's, `getTransactionStatusBySessionToken`.
 */
export function isSessionTransaction(tx: TransactionRecord, session: SessionRecord): boolean {
  return tx.sessionId === session.id;
}
