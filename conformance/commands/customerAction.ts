/** Sandbox: the customer confirms or cancels, or the system completes — moves read from x-state-machine. */
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { transitionsOf } from '../../model/index.ts';
import { allowedAnswers } from './cancelTransaction.ts';
import { checkRecord } from './getTransaction.ts';
import { changed } from '../instants.ts';

export type ActionOp = 'sandboxConfirmTransaction' | 'sandboxCancelTransaction' | 'sandboxCompleteTransaction';

/** @checks state-transitions, ADR-009 */
export class CustomerAction implements Cmd {
  constructor(
    readonly op: ActionOp,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.txs.some((t) => t.kind === 'partner' && t.who === 'main');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'partner' && t.who === 'main'),
      this.idx,
    )!;
    const t = transitionsOf(this.op)[0]!;
    const ex = await w.client.call(this.op, { pathParams: { transactionId: tx.id }, headers: w.auth(this.op, w.cfg.apiKey) });
    const { statuses, allowed } = allowedAnswers(w.state, tx, this.op, ex);
    w.expectOutcome(ex, allowed);
    if (w.succeeded(ex)) {
      w.transition(tx, t.id);
      changed(w, tx, ex);
      checkRecord(w, ex, tx, [t.to]);
    } else if (statuses.includes('EXPIRED')) w.observe(tx, 'EXPIRED');
  }
  toString(): string {
    return `${this.op.replace('sandbox', '').replace('Transaction', '').toLowerCase()}(#${this.idx})`;
  }
}
