/**
 * The sandbox transactions list read to its end through its cursors (ADR-028) equals what the model
 * holds: every partner transaction of the main merchant the suite created is listed once, as the
 * model holds it, no item repeats, and the items keep the order the spec gives the list
 * (`x-array-order`, ADR-048). Transactions of earlier runs or other clients of the key may be
 * listed too: the list is a superset of the model.
 */
import { stableJson } from '../../lib/json.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { changedFields, EXPIRY } from '../../model/index.ts';
import { readListToEnd } from './pagedList.ts';
import { checkExpiryInstant, possibleStatuses } from './advanceClock.ts';

const OP = 'sandboxListTransactions';

/** @checks ADR-028, ADR-048 */
export class ListTransactions implements Cmd {
  constructor(readonly limit: number) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(OP);
  }
  async run(_m: Model, w: Real): Promise<void> {
    const listed = await readListToEnd(w, OP, 'SandboxTransactionList', this.limit, 'transaction');
    const seen = new Map(listed.map((l) => [String(l.item.id), l]));
    // the merchant's list holds none of the other merchant's transactions
    const foreign = listed.find((l) => w.state.txs.get(String(l.item.id))?.who === 'other');
    w.check(
      foreign === undefined,
      OP,
      '$.data[].id',
      `the merchant's list holds the other merchant's transaction ${String(foreign?.item.id)}`,
      'absent',
      foreign?.item.id,
    );
    for (const tx of w.state.txs.values()) {
      if (tx.who !== 'main' || tx.kind !== 'partner') continue;
      const got = seen.get(tx.id);
      w.check(
        got !== undefined,
        OP,
        '$.data',
        `transaction ${tx.id}, created by this suite, is missing from the list read to its end (a page skipped it)`,
        tx.id,
        'absent',
      );
      for (const f of changedFields(tx.created, got!.item, (field) => w.contract.arrayOrder('PartnerTransaction', field) !== undefined))
        w.check(
          false,
          OP,
          `$.data[].${f}`,
          `transaction ${tx.id} is listed with ${f} ${stableJson(got!.item[f])}, created with ${stableJson(tx.created[f])}`,
          tx.created[f],
          got!.item[f],
        );
      if (w.state.abandonedRuns.has(tx.runId)) continue;
      const allowed = possibleStatuses(w.state, tx, performance.now(), got!.ex);
      w.check(
        allowed.includes(String(got!.item.status)),
        OP,
        '$.data[].status',
        `transaction ${tx.id} is listed ${String(got!.item.status)}, the model expects ${allowed.join(' or ')}`,
        allowed,
        got!.item.status,
      );
      w.observe(tx, String(got!.item.status));
      if (got!.item.status === EXPIRY.to) checkExpiryInstant(w, tx, OP, '$.data[].updatedAt', got!.item.updatedAt);
    }
  }
  toString(): string {
    return `listTransactions(to the end, limit ${this.limit})`;
  }
}
