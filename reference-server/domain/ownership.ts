/** Who may read or change a transaction. */
import type { SessionRecord, TransactionKind, TransactionRecord } from './types.ts';

/**
 * Seed rule (B2, B3, B4, A3: "404 TRANSACTION_NOT_FOUND when missing or not owned by the
 * merchant"): a merchant reaches only its own transactions, and only of the kind the
 * operation serves (`null`: either kind). Anything else reads as missing.
 * @rule ownership
 */
export function isOwnTransaction(
  tx: TransactionRecord | undefined,
  merchantId: string,
  kind: TransactionKind | null,
): tx is TransactionRecord {
  return tx !== undefined && tx.merchantId === merchantId && (kind === null || tx.kind === kind);
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
