/**
 * A sandbox list read to its end through its cursors (ADR-028): the next page is asked with the
 * previous page's `nextCursor` until it is null. Each page is judged by the judge as the suite's
 * client hands it over (judge/pages.ts `judgePage`: at most `limit` items and exactly `limit` when a
 * next page follows, no item listed twice in one read, the order the spec gives the list:
 * `x-array-order` of its `data`, by what its `x-array-order-by` names; ADR-048, ADR-081). What the
 * list must hold is each command's own check.
 *
 * A list in insertion order (the SMS outbox, the webhook deliveries) is also held to its order by
 * when the suite made its own items (`made`: every change of its transactions, where the judge
 * remembers the latest), with the judge's rule (`orderProblem`), never by the instants the items
 * carry: an item of an earlier run may carry an instant ahead of a clock a reset moved back since.
 */
import type { Exchange } from '../http.ts';
import type { Real } from '../model.ts';
import type { Interval } from '../../model/index.ts';
import type { Who } from '../model-state.ts';
import { orderKey, orderProblem } from '../../judge/pages.ts';

type Json = Record<string, unknown>;

/** A run that never reaches a last page is a finding, not a hang. */
const MAX_PAGES = 1000;

export interface ListedItem {
  item: Json;
  /** The exchange that listed it (the interval within which the server read it). */
  ex: Exchange;
}

/** Whose list is read (default the main merchant's) and the filter it is read with, sent with every page. */
export interface ListRead {
  who?: Who;
  filter?: Record<string, string>;
}

/**
 * Reads `op` (with the main merchant's key, or `read.who`'s) to its end in pages of `limit`, with
 * `read.filter` on every page (the judge holds every page to it); `schema` is its answer's schema
 * (for `x-array-order` and `x-array-order-by`), `made` when the suite made an item of a list in
 * insertion order (its own, on performance.now()'s clock; undefined for another's). Returns the
 * items in the order read, each with its page's exchange.
 * @checks ADR-028, ADR-048, ADR-081
 */
export async function readListToEnd(
  w: Real,
  op: string,
  schema: string,
  limit: number,
  what: string,
  made: (item: Json) => Interval | undefined = () => undefined,
  read: ListRead = {},
): Promise<ListedItem[]> {
  const listed: ListedItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    w.check(page < MAX_PAGES, op, '$.nextCursor', `no last page after ${MAX_PAGES} pages of ${limit}`, null, cursor);
    const query: Record<string, string> = { ...read.filter, limit: String(limit) };
    if (cursor !== null) query.cursor = cursor;
    const ex = await w.client.call(op, { headers: w.auth(op, w.key(read.who ?? 'main')), query });
    w.expectOutcome(ex, [w.success(op)]);
    const body = ex.json as { data: Json[]; nextCursor: string | null };
    for (const item of body.data) listed.push({ item, ex });
    if (body.nextCursor === null) break;
    cursor = body.nextCursor;
  }
  const order = w.contract.arrayOrder(schema, 'data');
  const orderBy = w.contract.arrayOrderBy(schema, 'data');
  const sign = order === 'newest-first' ? -1 : order === 'oldest-first' ? 1 : 0;
  if (sign !== 0 && orderBy === 'insertion') {
    const items = listed.map((l) => l.item);
    const { problem } = orderProblem(items, sign, orderKey(orderBy, made));
    if (problem) {
      const item = items[problem.index]!;
      w.check(
        false,
        op,
        `$.data[${problem.index}]`,
        `${what} ${String(item.id)} comes after ${String(problem.after)}, made ${sign > 0 ? 'before' : 'after'} it: the list is ${order} by the order its items were made (ADR-081)`,
        order,
        item.id,
      );
    }
  }
  return listed;
}
