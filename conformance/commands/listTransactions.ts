/**
 * The sandbox transactions list read to its end through its cursors (ADR-028) equals what the model
 * holds: every partner transaction of the main merchant the suite created is listed once, as the
 * model holds it, no item repeats, and the items keep the order the spec gives the list
 * (`x-array-order`, ADR-048). Transactions of earlier runs or other clients of the key may be
 * listed too: the list is a superset of the model.
 */
import { stableJson } from '../../lib/json.ts';
import type { Exchange } from '../http.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { sameJson } from '../same.ts';

type Json = Record<string, unknown>;

const OP = 'sandboxListTransactions';
/** A run that never reaches a last page is a finding, not a hang. */
const MAX_PAGES = 1000;
/** The record's members that never change after creation. */
const FIXED = [
  'orderReference',
  'vendorReference',
  'totalAmount',
  'currency',
  'customerPhone',
  'merchantName',
  'storeName',
  'items',
  'createdAt',
];

/** @checks ADR-028, ADR-048 */
export class ListTransactions implements Cmd {
  constructor(readonly limit: number) {}
  check(m: Readonly<Model>): boolean {
    return m.world.sandbox && m.world.contract.has(OP);
  }
  async run(_m: Model, w: Real): Promise<void> {
    const seen = new Map<string, { item: Json; ex: Exchange }>();
    const listed: Json[] = [];
    let cursor: string | null = null;
    for (let page = 0; ; page++) {
      w.check(page < MAX_PAGES, OP, '$.nextCursor', `no last page after ${MAX_PAGES} pages of ${this.limit}`, null, cursor);
      const query: Record<string, string> = { limit: String(this.limit) };
      if (cursor !== null) query.cursor = cursor;
      const ex = await w.client.call(OP, { headers: w.auth(OP, w.cfg.apiKey), query });
      w.expectOutcome(ex, [w.success(OP)]);
      const body = ex.json as { data: Json[]; nextCursor: string | null };
      w.check(
        body.data.length <= this.limit,
        OP,
        '$.data',
        `a page of ${body.data.length} items for limit ${this.limit}`,
        this.limit,
        body.data.length,
      );
      for (const item of body.data) {
        const id = String(item.id);
        w.check(
          !seen.has(id),
          OP,
          '$.data',
          `transaction ${id} is listed twice in one read to the end (pages repeat an item)`,
          'once',
          'twice',
        );
        seen.set(id, { item, ex });
        listed.push(item);
      }
      if (body.nextCursor === null) break;
      cursor = body.nextCursor;
    }
    const order = w.contract.arrayOrder('SandboxTransactionList', 'data');
    const sign = order === 'newest-first' ? -1 : order === 'oldest-first' ? 1 : 0;
    if (sign !== 0)
      listed.forEach((item, i) => {
        if (i === 0) return;
        const d = Date.parse(String(item.createdAt)) - Date.parse(String(listed[i - 1]!.createdAt));
        w.check(
          d * sign >= 0,
          OP,
          `$.data[${i}]`,
          `${String(item.id)} (created ${String(item.createdAt)}) comes after ${String(listed[i - 1]!.id)} (created ${String(listed[i - 1]!.createdAt)}): the list is ${order}`,
          order,
          item.createdAt,
        );
      });
    for (const tx of w.txs.values()) {
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
      for (const f of FIXED)
        w.check(
          sameJson(got!.item[f], tx.created[f], w.contract.arrayOrder('PartnerTransaction', f) !== undefined),
          OP,
          `$.data[].${f}`,
          `transaction ${tx.id} is listed with ${f} ${stableJson(got!.item[f])}, created with ${stableJson(tx.created[f])}`,
          tx.created[f],
          got!.item[f],
        );
      if (w.abandonedRuns.has(tx.runId)) continue;
      const allowed = w.possibleStatuses(tx, got!.ex);
      w.check(
        allowed.includes(String(got!.item.status)),
        OP,
        '$.data[].status',
        `transaction ${tx.id} is listed ${String(got!.item.status)}, the model expects ${allowed.join(' or ')}`,
        allowed,
        got!.item.status,
      );
      w.observe(tx, String(got!.item.status));
    }
  }
  toString(): string {
    return `listTransactions(to the end, limit ${this.limit})`;
  }
}
