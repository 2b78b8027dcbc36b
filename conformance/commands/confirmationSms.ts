/** Sandbox: B1 sent the customer one confirmation SMS, to the transaction's customerPhone (read from the SMS log). */
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';

const OP = 'sandboxListSms';

/** @checks confirmation-sms */
export class ConfirmationSms implements Cmd {
  constructor(readonly idx: number) {}
  check(m: Readonly<Model>): boolean {
    return m.world.sandbox && m.world.contract.has(OP) && m.txs.some((t) => t.kind === 'partner' && t.who === 'main');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'partner' && t.who === 'main'),
      this.idx,
    )!;
    const ex = await w.client.call(OP, { headers: w.auth(OP, w.cfg.apiKey) });
    w.expectOutcome(ex, [w.success(OP)]);
    const sent = ((ex.json as { data?: Array<{ to?: string; transactionId?: string }> }).data ?? []).filter(
      (s) => s.transactionId === tx.id,
    );
    w.check(
      sent.length === 1,
      OP,
      '$.data',
      `${sent.length} confirmation SMS for transaction ${tx.id}; B1 sends the customer one`,
      1,
      sent.length,
    );
    w.check(
      sent[0]?.to === tx.created.customerPhone,
      OP,
      '$.data[].to',
      'the confirmation SMS went to another number than customerPhone',
      tx.created.customerPhone,
      sent[0]?.to,
    );
  }
  toString(): string {
    return `confirmationSms(#${this.idx})`;
  }
}
