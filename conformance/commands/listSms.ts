/**
 * The SMS outbox read to its end through its cursors (ADR-028), oldest first: every partner
 * transaction the main merchant created in this suite has its one confirmation, to its
 * customerPhone, and no other merchant's message is listed. Messages of earlier suites or other
 * clients of the key may be listed too: the outbox is a superset of the model.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { readListToEnd } from './pagedList.ts';

const OP = 'sandboxListSms';

/** @checks ADR-028, ADR-048, confirmation-sms */
export class ListSms implements Cmd {
  constructor(readonly limit: number) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(OP);
  }
  async run(_m: Model, w: Real): Promise<void> {
    const listed = await readListToEnd(w, OP, 'SmsOutbox', 'sentAt', this.limit, 'SMS', (item) =>
      w.state.txs.has(String(item.transactionId)),
    );
    const byTx = new Map<string, Record<string, unknown>[]>();
    for (const { item } of listed) {
      const id = String(item.transactionId);
      byTx.set(id, [...(byTx.get(id) ?? []), item]);
    }
    for (const tx of w.state.txs.values()) {
      if (tx.kind !== 'partner') continue;
      const sms = byTx.get(tx.id) ?? [];
      if (tx.who === 'other') {
        w.check(
          sms.length === 0,
          OP,
          '$.data[].transactionId',
          `the outbox lists an SMS of the other merchant's transaction ${tx.id}`,
          0,
          sms.length,
        );
        continue;
      }
      w.check(
        sms.length === 1,
        OP,
        '$.data',
        `${sms.length} SMS for transaction ${tx.id} in the outbox read to its end; B1 sends its customer one${sms.length ? '' : ' (a page skipped it)'}`,
        1,
        sms.length,
      );
      w.check(
        sms[0]!.to === tx.created.customerPhone,
        OP,
        '$.data[].to',
        `the SMS for transaction ${tx.id} went to ${String(sms[0]!.to)}, its customerPhone is ${String(tx.created.customerPhone)}`,
        tx.created.customerPhone,
        sms[0]!.to,
      );
    }
  }
  toString(): string {
    return `listSms(to the end, limit ${this.limit})`;
  }
}
