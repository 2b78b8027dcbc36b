/**
 * The SMS outbox read to its end through its cursors (ADR-028), oldest first; what it must hold
 * (confirmation-sms) is judged by smsOutbox.ts's `checkOutboxRead`.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { readListToEnd } from './pagedList.ts';
import { checkOutboxRead } from './smsOutbox.ts';

const OP = 'sandboxListSms';

/** @checks ADR-028, ADR-048 */
export class ListSms implements Cmd {
  constructor(readonly limit: number) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(OP);
  }
  async run(_m: Model, w: Real): Promise<void> {
    // an SMS is made with its transaction (B1): the suite's own transactions' creation exchanges
    const listed = await readListToEnd(w, OP, 'SmsOutbox', this.limit, 'SMS', (item) => {
      const tx = w.state.txs.get(String(item.transactionId));
      return tx && tx.kind === 'partner' ? { from: tx.sentAt, to: tx.receivedAt } : undefined;
    });
    checkOutboxRead(
      w,
      listed.map(({ item }) => item),
    );
  }
  toString(): string {
    return `listSms(to the end, limit ${this.limit})`;
  }
}
