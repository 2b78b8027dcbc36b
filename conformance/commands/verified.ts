/** What A2 and A3 answers share: the status as the checkout reports it (ADR-008), the transaction's id and the session's amount. */
import { checkoutStatusOf } from '../../generated/index.ts';
import { centimesOf } from '../../lib/money.ts';
import type { Real } from '../model.ts';
import type { Status, Tx } from '../world.ts';
import { checkLastChanged } from '../instants.ts';
import { checkOf, checkStatusRecordValues, checkVerificationValues } from '../repeated.ts';

/**
 * Checks a verification record `rec` of `tx` (a checkout transaction) answered by `op`: its status
 * is one the model allows (`statuses`, as the checkout reports them), `idField` names `tx`, the
 * amount is the session's total; a PENDING transaction reported the way EXPIRED is has expired.
 */
export function checkVerified(
  w: Real,
  op: string,
  tx: Tx,
  rec: Record<string, unknown>,
  statuses: readonly string[],
  idField: string,
): void {
  const reported: string[] = statuses.map((s) => checkoutStatusOf[s as Status]);
  w.check(
    reported.includes(rec.status as string),
    op,
    '$.status',
    `status ${String(rec.status)}, the model expects ${reported.join(' or ')} (ADR-008)`,
    reported,
    rec.status,
  );
  w.check(rec[idField] === tx.id, op, `$.${idField}`, 'another transaction was returned', tx.id, rec[idField]);
  const total = tx.session!.total;
  w.check(
    centimesOf(rec.amount) === centimesOf(total),
    op,
    '$.amount',
    `amount ${String(rec.amount)} for a session of ${total}`,
    total,
    rec.amount,
  );
  if (tx.status === 'PENDING' && rec.status === checkoutStatusOf.EXPIRED) w.observe(tx, 'EXPIRED');
  // the values A2 and A3 repeat, and A2's last change (its date form) when the model's status is certain
  if (idField !== 'transaction_id') return checkVerificationValues(w, op, tx, rec);
  checkStatusRecordValues(w, op, tx, rec);
  if (statuses.length === 1 && statuses[0] === tx.status)
    checkLastChanged(w, checkOf(w, op), tx, '$.updated_at', rec.updated_at, 'local', rec.created_at);
}
