/** Sandbox: B1 sent the customer one confirmation SMS, to the transaction's customerPhone (read from the SMS outbox). */
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { checkConfirmationSms } from './smsOutbox.ts';

export class ConfirmationSms implements Cmd {
  constructor(readonly idx: number) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has('sandboxListSms') && m.txs.some((t) => t.kind === 'partner' && t.who === 'main');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'partner' && t.who === 'main'),
      this.idx,
    )!;
    await checkConfirmationSms(w, tx);
  }
  toString(): string {
    return `confirmationSms(#${this.idx})`;
  }
}
