/**
 * Every filter of the sandbox lists holds on every page (ADR-028: a list filters before it pages).
 * The transactions list is read to its end with each status of `TransactionStatus` (from the
 * contract), in pages small enough that the merchant's transactions in that status fill two of
 * them at least; with one transaction's reference, alone and beside a status it does not have;
 * the SMS outbox and the webhook deliveries with one transaction's id, in pages of one. Every page
 * holds only what its filter keeps (`readListToEnd`), and a filtered read holds every transaction
 * of the model certainly in its status (a page that skipped one is found too).
 */
import type { Cmd, Model, Real } from '../model.ts';
import type { Tx } from '../model-state.ts';
import { possibleStatuses } from './advanceClock.ts';
import { readListToEnd } from './pagedList.ts';
import { readAllPages } from './smsOutbox.ts';

const OP = 'sandboxListTransactions';

/** @checks ADR-028 */
export class FilteredLists implements Cmd {
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(OP);
  }
  async run(_m: Model, w: Real): Promise<void> {
    const own = [...w.state.txs.values()].filter((t) => t.who === 'main' && !w.state.abandonedRuns.has(t.runId));
    const statuses = (w.contract.schema('TransactionStatus').enum as string[] | undefined) ?? [];
    for (const status of statuses) {
      const certain = (t: Tx, during?: { sentAt: number; receivedAt: number }): boolean =>
        possibleStatuses(w.state, t, performance.now(), during).join() === status;
      const known = own.filter((t) => certain(t));
      const limit = Math.max(1, Math.ceil(known.length / 2));
      const listed = await readListToEnd(w, OP, 'SandboxTransactionList', limit, `${status} transaction`, () => undefined, {
        filter: { status },
      });
      const during = { sentAt: listed[0]?.ex.sentAt ?? performance.now(), receivedAt: listed.at(-1)?.ex.receivedAt ?? performance.now() };
      const ids = new Set(listed.map((l) => String(l.item.id)));
      for (const t of known)
        if (certain(t, during))
          w.check(
            ids.has(t.id),
            OP,
            '$.data',
            `transaction ${t.id}, ${status} throughout, is missing from the list read with status=${status} in pages of ${limit} (a page skipped it)`,
            t.id,
            'absent',
          );
      for (const { item } of listed) {
        const t = w.state.txs.get(String(item.id));
        if (t?.who === 'other')
          w.check(
            false,
            OP,
            '$.data[].id',
            `the list read with status=${status} holds the other merchant's transaction ${t.id}`,
            'absent',
            t.id,
          );
      }
    }
    // one transaction's reference: that transaction alone; with a status it does not have, nothing
    const tx = own.find(
      (t) => t.kind === 'partner' && t.vendorReference !== null && possibleStatuses(w.state, t, performance.now()).length === 1,
    );
    if (tx) {
      const ref = tx.vendorReference!;
      const one = await readListToEnd(w, OP, 'SandboxTransactionList', 1, 'transaction', () => undefined, {
        filter: { vendorReference: ref },
      });
      w.check(
        one.length === 1 && one[0]!.item.id === tx.id,
        OP,
        '$.data',
        `the list read with vendorReference=${ref} holds ${one.map((l) => String(l.item.id)).join(', ') || 'nothing'}; the merchant's one transaction with it is ${tx.id}`,
        [tx.id],
        one.map((l) => l.item.id),
      );
      const not = statuses.find((s) => s !== tx.status);
      if (not)
        await readListToEnd(w, OP, 'SandboxTransactionList', 1, 'transaction', () => undefined, {
          filter: { vendorReference: ref, status: not },
        });
      // the other lists' filter, in pages of one: the judge holds every page to it (judge/pages.ts)
      for (const op of ['sandboxListSms', 'sandboxListWebhookDeliveries'])
        if (w.contract.has(op)) await readAllPages(w, op, { transactionId: tx.id, limit: '1' });
    }
  }
  toString(): string {
    return 'filteredLists(every status, a reference, a transaction id; small pages)';
  }
}
