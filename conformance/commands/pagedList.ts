/**
 * A sandbox list read to its end through its cursors (ADR-028): every page holds at most `limit`
 * items, the next page is asked with the previous page's `nextCursor` until it is null, no item
 * (by id) is listed twice, and the items read in turn keep the order the spec gives the list
 * (`x-array-order` of its `data`, by the items' time member; ADR-048). What the list must hold is
 * each command's own check.
 *
 * The order is insertion order, judged by the items' times among the items this suite inserted
 * (`ours`) only: the sandbox clock moves only forward while the suite runs, so their times follow
 * their insertion; an item of an earlier run may carry a time ahead of a clock a reset moved
 * back since (ADR-043), and its place in the list says nothing its time could check.
 */
import { filterViolations, type ListFilter } from '../../model/index.ts';
import type { Exchange } from '../http.ts';
import type { Real } from '../model.ts';
import type { Who } from '../model-state.ts';

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
  filter?: ListFilter;
}

/**
 * Reads `op` (with the main merchant's key, or `read.who`'s) to its end in pages of `limit`;
 * `schema` is its answer's schema (for `x-array-order`), `timeField` the member the order is by,
 * `ours` true for an item this suite inserted. With `read.filter`, every page — the first and each
 * one its cursor leads to — holds only items the filter keeps (the model's `filterViolations`).
 * Returns the items in the order read, each with its page's exchange.
 * @checks ADR-028, ADR-048
 */
export async function readListToEnd(
  w: Real,
  op: string,
  schema: string,
  timeField: string,
  limit: number,
  what: string,
  ours: (item: Json) => boolean,
  read: ListRead = {},
): Promise<ListedItem[]> {
  const filter = read.filter ?? {};
  const filtered = Object.entries(filter)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const seen = new Set<string>();
  const listed: ListedItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    w.check(page < MAX_PAGES, op, '$.nextCursor', `no last page after ${MAX_PAGES} pages of ${limit}`, null, cursor);
    const query: Record<string, string> = { ...filter, limit: String(limit) };
    if (cursor !== null) query.cursor = cursor;
    const ex = await w.client.call(op, { headers: w.auth(op, w.key(read.who ?? 'main')), query });
    w.expectOutcome(ex, [w.success(op)]);
    const body = ex.json as { data: Json[]; nextCursor: string | null };
    w.check(body.data.length <= limit, op, '$.data', `a page of ${body.data.length} items for limit ${limit}`, limit, body.data.length);
    const [v] = filterViolations(filter, body.data);
    if (v)
      w.check(
        false,
        op,
        `$.data[${v.index}].${v.member}`,
        `page ${page + 1} of the list read with ${filtered} (limit ${limit}) holds ${what} ${String(body.data[v.index]!.id)} with ${v.member} ${JSON.stringify(v.actual)}: a list filters before it pages, every page included (ADR-028)`,
        v.expected,
        v.actual,
      );
    for (const item of body.data) {
      const id = String(item.id);
      w.check(!seen.has(id), op, '$.data', `${what} ${id} is listed twice in one read to the end (pages repeat an item)`, 'once', 'twice');
      seen.add(id);
      listed.push({ item, ex });
    }
    if (body.nextCursor === null) break;
    cursor = body.nextCursor;
  }
  const order = w.contract.arrayOrder(schema, 'data');
  const sign = order === 'newest-first' ? -1 : order === 'oldest-first' ? 1 : 0;
  const own = listed.filter(({ item }) => ours(item));
  if (sign !== 0)
    own.forEach(({ item }, i) => {
      if (i === 0) return;
      const prev = own[i - 1]!.item;
      const d = Date.parse(String(item[timeField])) - Date.parse(String(prev[timeField]));
      w.check(
        d * sign >= 0,
        op,
        `$.data[${listed.findIndex((l) => l.item === item)}]`,
        `${what} ${String(item.id)} (${timeField} ${String(item[timeField])}) comes after ${String(prev.id)} (${timeField} ${String(prev[timeField])}): the list is ${order}`,
        order,
        item[timeField],
      );
    });
  return listed;
}
