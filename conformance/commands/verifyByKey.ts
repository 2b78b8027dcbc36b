/** A3 (Variant 1): verify a checkout transaction with the API key; another merchant's key reads 404. */
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { checkVerified } from './verified.ts';
import { possibleStatuses } from './advanceClock.ts';

const OP = 'verifyTransaction';

/** @checks a3-verification */
export class VerifyByKey implements Cmd {
  constructor(
    readonly idx: number,
    readonly otherMerchant: boolean,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.contract.has(OP) && m.txs.some((t) => t.kind === 'checkout');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'checkout'),
      this.idx,
    )!;
    const ex = await w.client.call(OP, {
      pathParams: { transactionId: tx.id },
      headers: w.auth(OP, w.key(this.otherMerchant ? 'other' : 'main')),
    });
    const statuses = possibleStatuses(w.state, tx, performance.now(), ex);
    if (this.otherMerchant) return w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
    w.expectOutcome(ex, [w.success(OP)]);
    checkVerified(w, OP, tx, ex.json as Record<string, unknown>, statuses, 'id');
  }
  toString(): string {
    return `verifyByKey(#${this.idx}${this.otherMerchant ? ", other merchant's key" : ''})`;
  }
}
