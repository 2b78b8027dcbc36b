/** What A2 and A3 answers share: the status as the checkout reports it (ADR-008), the transaction's id and the session's amount. */
import { EXPIRY, INITIAL } from '../../model/index.ts';
import { checkoutStatusOf } from '../../generated/index.ts';
import { centimesOf } from '../../lib/money.ts';
import type { Real } from '../model.ts';
import type { Status, Tx } from '../world.ts';
import { checkVerificationValues } from '../repeated.ts';

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
  if (tx.status === INITIAL && rec.status === checkoutStatusOf.EXPIRED) w.observe(tx, EXPIRY.to);
  // the values A3 repeats; A2's own members are status-record.ts's (`checkStatusRecord`, which calls this first)
  if (idField !== 'transaction_id') checkVerificationValues(w, op, tx, rec);
}
