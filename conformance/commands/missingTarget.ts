/** Sandbox moves on a transaction that does not exist (or is another merchant's) get 404 TRANSACTION_NOT_FOUND. */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';

export type TargetOp = 'sandboxConfirmTransaction' | 'sandboxCancelTransaction' | 'sandboxCompleteTransaction';

export class MissingTarget implements Cmd {
  constructor(
    readonly op: TargetOp,
    readonly otherMerchant: boolean,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && (!this.otherMerchant || m.txs.some((t) => t.who === 'other'));
  }
  async run(m: Model, w: Real): Promise<void> {
    const id = this.otherMerchant
      ? pick(
          m.txs.filter((t) => t.who === 'other'),
          this.idx,
        )!.id
      : randomUUID();
    const ex = await w.client.call(this.op, { pathParams: { transactionId: id }, headers: w.auth(this.op, w.cfg.apiKey) });
    w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
  }
  toString(): string {
    return `${this.op}(${this.otherMerchant ? "other merchant's transaction" : 'missing transaction'})`;
  }
}
