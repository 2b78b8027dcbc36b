/**
 * The webhook deliveries read to their end through their cursors (ADR-028), newest first: every
 * event the model saw the main merchant's transactions emit (x-state-machine) is listed, with its
 * transaction and event name, and no event of the other merchant's transactions. An expiry is
 * required once its webhook reached the suite before the read began: the server may write it at
 * its next sweep, later than the window's end the model knows (a change the suite made is written
 * with its answer), and one written while the pages are read (newest first) comes before the
 * first page and may still reach the suite before the last one. Events the model has not
 * resolved yet or of earlier suites may be listed too.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { stateMachine } from '../../generated/index.ts';
import { transitionById } from '../../model/index.ts';
import { readListToEnd } from './pagedList.ts';

const OP = 'sandboxListWebhookDeliveries';
const EXPIRY_EVENT = transitionById('expire').emits;

/** @checks ADR-028, ADR-048, webhook-events */
export class ListWebhookDeliveries implements Cmd {
  constructor(readonly limit: number) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(OP);
  }
  async run(_m: Model, w: Real): Promise<void> {
    // the expiries delivered before the first page is asked for: each was written before it
    const received = new Set((w.receiver?.deliveries ?? []).map((d) => `${d.payload?.data?.id ?? ''} ${d.payload?.event ?? ''}`));
    // an event is made with the transition that emits it: the exchange of a move the suite made
    const listed = await readListToEnd(w, OP, 'WebhookDeliveryList', this.limit, 'delivery', (item) => {
      const tx = w.state.txs.get(String(item.transactionId));
      const to = stateMachine.transitions.find((t) => t.emits === item.event)?.to;
      const change = to === undefined ? undefined : tx?.changes?.[to];
      return change && { from: change.sentAt, to: change.receivedAt };
    });
    const byTx = new Map<string, string[]>();
    for (const { item } of listed) {
      const id = String(item.transactionId);
      byTx.set(id, [...(byTx.get(id) ?? []), String(item.event)]);
    }
    for (const tx of w.state.txs.values()) {
      const events = byTx.get(tx.id) ?? [];
      if (tx.who === 'other') {
        w.check(
          events.length === 0,
          OP,
          '$.data[].transactionId',
          `the merchant's deliveries list ${events.join(', ')} of the other merchant's transaction ${tx.id}`,
          [],
          events,
        );
        continue;
      }
      const required = (tx.emitted ?? []).filter((e) => e !== EXPIRY_EVENT || received.has(`${tx.id} ${e}`));
      for (const ev of new Set(required)) {
        const want = required.filter((e) => e === ev).length;
        const got = events.filter((e) => e === ev).length;
        w.check(
          got >= want,
          OP,
          '$.data',
          `${got} ${ev} listed for transaction ${tx.id} in the deliveries read to their end; the model saw its transitions emit ${want} (a page skipped it)`,
          want,
          got,
        );
      }
    }
  }
  toString(): string {
    return `listWebhookDeliveries(to the end, limit ${this.limit})`;
  }
}
