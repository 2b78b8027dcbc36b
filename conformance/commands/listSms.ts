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
    const listed = await readListToEnd(w, OP, 'SmsOutbox', 'sentAt', this.limit, 'SMS', (item) =>
      w.state.txs.has(String(item.transactionId)),
    );
    checkOutboxRead(
      w,
      listed.map(({ item }) => item),
    );
  }
  toString(): string {
    return `listSms(to the end, limit ${this.limit})`;
  }
}
