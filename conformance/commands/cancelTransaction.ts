/** B4: the merchant cancels by vendorReference — allowed only from PENDING (x-state-machine). */
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { errorOf, pick, refusal } from '../model.ts';
import { answers, lookupVendorReference, refusedFrom, transitionsOf } from '../../model/index.ts';
import type { ModelState, Status, Tx } from '../model-state.ts';
import type { Exchange } from '../http.ts';
import { SLACK_MS, during as duringIv } from '../model-time.ts';
import { expiresAt, possibleStatuses } from './advanceClock.ts';
import { checkRecord, sameNotFound } from './getTransaction.ts';
import { changed } from '../instants.ts';

const OP = 'cancelPartnerTransactionByVendorReference';

/**
 * The answers the model allows to `op` on `tx` sent and answered during `ex` (a simulated payment's
 * `outcome` if any), and the statuses `tx` may have been in: `possibleStatuses` then the model's
 * `answers`, as the suite's outcomes (a success carries no code).
 */
export function allowedAnswers(
  s: ModelState,
  tx: Tx,
  op: string,
  ex: { sentAt: number; receivedAt: number },
  outcome?: 'success' | 'failed',
): { statuses: string[]; allowed: Outcome[] } {
  const statuses = possibleStatuses(s, tx, performance.now(), ex) as Status[];
  const list = answers(op, statuses, duringIv(ex, s.advanced[tx.who]), { expiresAt: expiresAt(s, tx), outcome }, SLACK_MS);
  return { statuses, allowed: list.map((a) => (a.code === null ? { status: a.status } : { status: a.status, code: a.code })) };
}

/**
 * After a refusal of `op`: what it says the transaction was (the model's `refusedFrom`, the proxy's
 * judge too), among the statuses it may have been in; one left settles an open expiry.
 */
export function settleRefused(w: Real, tx: Tx, op: string, ex: Exchange, statuses: string[]): void {
  const error = errorOf(ex);
  const was = refusedFrom(op, ex.status, typeof error?.code === 'string' ? error.code : undefined, error?.message).filter((s) =>
    statuses.includes(s),
  );
  if (was.length === 1) w.observe(tx, was[0]!);
}

/** @checks b4-only-pending */
export class CancelTransaction implements Cmd {
  constructor(
    readonly otherMerchant: boolean,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.txs.some((t) => t.vendorReference);
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.vendorReference),
      this.idx,
    )!;
    const reader = this.otherMerchant ? (tx.who === 'main' ? 'other' : 'main') : tx.who;
    if (
      this.otherMerchant &&
      lookupVendorReference(
        m.txs.filter((t) => t.who === reader),
        tx.vendorReference!,
      ) !== undefined
    )
      return;
    const ex = await w.client.call(OP, { pathParams: { vendorReference: tx.vendorReference! }, headers: w.auth(OP, w.key(reader)) });
    // b4-only-pending: the model's answers (x-state-machine rejections: 400 TRANSACTION_NOT_PENDING from anything but PENDING)
    const { statuses, allowed } = allowedAnswers(w.state, tx, OP, ex);
    if (this.otherMerchant) {
      w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
      // the identical-404 rule: another merchant's transaction answers as a missing one
      const missingRef = w.freshVendorRef();
      const missing = await w.client.call(OP, { pathParams: { vendorReference: missingRef }, headers: w.auth(OP, w.key(reader)) });
      w.expectOutcome(missing, [refusal('TRANSACTION_NOT_FOUND')]);
      sameNotFound(w, ex, missing, tx.vendorReference!, missingRef);
      return;
    }
    const t = transitionsOf(OP)[0]!;
    w.expectOutcome(ex, allowed);
    if (w.succeeded(ex)) {
      const rec = ex.json as Record<string, unknown>;
      w.check(rec.status === t.to, OP, '$.status', `cancel answered status ${String(rec.status)}`, t.to, rec.status);
      w.transition(tx, t.id);
      changed(w, tx, ex);
      if (tx.who === 'main') w.checkInstant(ex, '$.updatedAt', rec.updatedAt, 'the instant of the cancellation');
      checkRecord(w, ex, tx, [t.to]);
      if (typeof rec.updatedAt === 'string') tx.changedAt = rec.updatedAt;
    } else settleRefused(w, tx, OP, ex, statuses);
  }
  toString(): string {
    return `cancelTransaction(${this.otherMerchant ? "other merchant's key" : 'own key'}, #${this.idx})`;
  }
}
