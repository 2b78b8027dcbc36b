/**
 * A list read page by page (ADR-028, ADR-048, ADR-081): the rules, once, for the suite's reads and
 * the judge's. A page holds at most `limit` items, and exactly `limit` when it gives a next cursor
 * (`pageSizeProblem`); a filter lists only what it names (`filterProblem`); the items keep the
 * list's order (`orderProblem`): by the member `x-array-order-by` names (the transactions list: its
 * createdAt, every item judged), or, for a list in insertion order (the SMS outbox, the webhook
 * deliveries), by when the reader saw each item made, never by the instants the items carry (a
 * sandbox reset sets the clock back, and items made before it carry later instants than items made
 * after). The judge's `judgePage` keeps what a page left for the next (its ids, the order so far,
 * the read it belongs to) and hands a list read to its end to the caller's `complete`.
 */
import type { Variant } from '../generated/index.ts';
import type { Interval } from '../model/index.ts';
import { resolveRef } from '../server/schema.ts';
import { compiledContract } from '../server/validate.ts';
import { routeTable } from '../server/routes.ts';
import { deletedUnseen, deletionRuledOut, finding, isRecord, type Json, type Judging, type Seen } from './context.ts';
import type { Finding } from './exchange.ts';
import { remember, type ListWalk } from './memory.ts';

/** A paged list's shape, read from the contract: its order, what the order is by, its page size, its filters. */
export interface ListShape {
  /** +1 oldest first, −1 newest first. */
  sign: number;
  /** `insertion` (the order the server made the items), or the item member the order is by. */
  orderBy: string;
  /** The page size when `limit` is not given. */
  limit: number;
  /** The query parameters named as an item member (`transactionId`, `status`): an item shows the value asked for. */
  filters: string[];
}

const SHAPES = new Map<string, ListShape | null>();

/** The list shape of `op` (a 200 answer with `data` and `nextCursor`), or null when it is no paged list. */
export function listShapeOf(v: Variant, op: string, doc: Json = compiledContract(v).doc): ListShape | null {
  const key = `${v} ${op}`;
  if (doc === compiledContract(v).doc && SHAPES.has(key)) return SHAPES.get(key)!;
  let shape: ListShape | null = null;
  const entry = routeTable(v).byId.get(op);
  const paths = doc.paths as Record<string, Record<string, Json>> | undefined;
  const spec = entry ? paths?.[entry.path]?.[entry.method.toLowerCase()] : undefined;
  const answer = resolveRef(doc, (spec?.responses as Json | undefined)?.['200']);
  const params = ((spec?.parameters as unknown[] | undefined) ?? []).map((x) => resolveRef(doc, x));
  const limit = resolveRef(doc, params.find((x) => x?.name === 'limit')?.schema)?.default;
  const body = resolveRef(doc, ((answer?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema);
  const props = body?.properties as Json | undefined;
  const data = resolveRef(doc, props?.data);
  const order = data?.['x-array-order'];
  const orderBy = data?.['x-array-order-by'];
  if (props?.nextCursor !== undefined && (order === 'newest-first' || order === 'oldest-first') && typeof orderBy === 'string') {
    const members = (resolveRef(doc, data?.items)?.properties ?? {}) as Json;
    const filters = params
      .filter((x) => x?.in === 'query' && typeof x.name === 'string' && x.name in members)
      .map((x) => x!.name as string);
    if (typeof limit === 'number') shape = { sign: order === 'oldest-first' ? 1 : -1, orderBy, limit, filters };
  }
  if (doc === compiledContract(v).doc) SHAPES.set(key, shape);
  return shape;
}

/** What is wrong with a page's size: more than `limit` items, or fewer with a next cursor (only the last page is shorter). */
export function pageSizeProblem(count: number, limit: number, nextCursor: boolean): 'over' | 'short' | null {
  if (count > limit) return 'over';
  return nextCursor && count < limit ? 'short' : null;
}

/** The first item a filter should have left out (`query`: the read's parameters), or undefined. */
export function filterProblem(
  items: readonly Json[],
  query: URLSearchParams,
  filters: readonly string[],
): { index: number; member: string; want: string; got: unknown } | undefined {
  for (const f of filters) {
    const want = query.get(f);
    const index = want === null ? -1 : items.findIndex((x) => f in x && x[f] !== want);
    if (want !== null && index >= 0) return { index, member: f, want, got: items[index]![f] };
  }
  return undefined;
}

/** How far a read has come in a list's order: the latest start (oldest first) or earliest end (newest first) of the items placed, and which. */
export interface OrderState {
  edge: number;
  id: string | undefined;
}

export const orderStart = (sign: number): OrderState => ({ edge: sign > 0 ? -Infinity : Infinity, id: undefined });

/** When an item of a list was made, as its order reads it: the member `orderBy` names, or `made` (insertion order; undefined: not known). */
export function orderKey(orderBy: string, made: (item: Json) => Interval | undefined): (item: Json) => Interval | undefined {
  if (orderBy === 'insertion') return made;
  return (item) => {
    const t = typeof item[orderBy] === 'string' ? Date.parse(item[orderBy]) : NaN;
    return Number.isNaN(t) ? undefined : { from: t, to: t };
  };
}

/**
 * The first item out of the list's order (`sign` +1 oldest first, −1 newest first) after `state`:
 * an item certainly made before (oldest first: after) one listed before it. Items whose making is
 * not known (`key` undefined) are not judged. Returns the state after the items.
 */
export function orderProblem(
  items: readonly Json[],
  sign: number,
  key: (item: Json) => Interval | undefined,
  state: OrderState = orderStart(sign),
): { problem?: { index: number; after: string | undefined }; state: OrderState } {
  let { edge, id } = state;
  let problem: { index: number; after: string | undefined } | undefined;
  items.forEach((item, index) => {
    const k = key(item);
    if (k === undefined) return;
    if (!problem && (sign > 0 ? k.to < edge : k.from > edge)) problem = { index, after: id };
    if (sign > 0 ? k.from > edge : k.to < edge) {
      edge = sign > 0 ? k.from : k.to;
      id = String(item.id);
    }
  });
  return { problem, state: { edge, id } };
}

/** Most items a read keeps (a longer list is judged page by page only). */
const WALK_ITEMS = 10_000;

/** What the judge knows of one merchant's list: when each item was made, what a whole read must hold, its own judgement of one. */
export interface ListKnowledge {
  /** When an item was made, as the ear saw it (insertion-ordered lists); undefined when not known. */
  made: (item: Json) => Interval | undefined;
  /** The ids (of `member` in each item) a list read whole, whose read began at `sentAt`, must hold. */
  expected?: (query: URLSearchParams, sentAt: number) => { member: string; ids: Iterable<string> } | undefined;
  /** The caller's own judgement of a whole read. */
  complete?: (walk: ListWalk, s: Seen) => Finding[];
}

/** One page of a paged list of merchant `m`: its size, its filter, repeats and order against the page that gave its cursor, and the whole read at its end. @judges partner-record, ADR-028, ADR-081 */
export function judgePage(s: Seen, j: Judging, v: Variant, know: ListKnowledge): void {
  const m = s.merchant;
  const shape = m === null ? null : listShapeOf(v, s.opId);
  const json = s.json as { data?: unknown; nextCursor?: unknown } | undefined;
  if (m === null || !shape || s.status !== 200 || !json || !Array.isArray(json.data)) return;
  const items = json.data.filter((x): x is Json => isRecord(x) && typeof x.id === 'string');
  const push = (jsonPath: string, message: string, expected: unknown, actual: unknown, earlier?: number) =>
    j.out.push(finding({ kind: 'list', at: s, earlier: earlier === undefined ? [] : [earlier], jsonPath, message, expected, actual }));
  const query = new URLSearchParams(s.search);
  const cursor = query.get('cursor');
  query.delete('cursor');
  const prev = cursor === null ? undefined : j.memory.pages.get(`${m.id} ${s.opId} ${cursor}`);
  const filtered = filterProblem(items, query, shape.filters);
  if (filtered)
    push(
      `$.data[${filtered.index}].${filtered.member}`,
      `${s.opId}?${filtered.member}=${filtered.want}: an item with ${filtered.member} ${JSON.stringify(filtered.got)} is listed; the filter lists only ${filtered.want}'s (ADR-028)`,
      filtered.want,
      filtered.got,
    );
  const limit = Number(query.get('limit') ?? shape.limit);
  const size = pageSizeProblem(items.length, limit, typeof json.nextCursor === 'string');
  if (size)
    push(
      '$.data',
      size === 'short'
        ? `${s.opId}: a page with a next cursor holds ${items.length} items, limit ${limit}; a page holds \`limit\` items, only the last one fewer (ADR-028: an item skipped)`
        : `${s.opId}: a page of ${items.length} items for limit ${limit} (ADR-028)`,
      limit,
      items.length,
    );
  // the read this page continues (the same query), or a new one from the first page
  const base: ListWalk | undefined = cursor === null ? { items: [], sentAt: s.sentAt, query, first: s.seq } : prev?.walk;
  const walk = base && base.query.toString() === query.toString() && base.items.length + items.length <= WALK_ITEMS ? base : undefined;
  if (prev) {
    const listed = walk ? new Set(walk.items.map((x) => x.id as string)) : prev.ids;
    const again = items.find((x) => listed.has(x.id as string));
    if (again)
      push(
        '$.data',
        `${s.opId}: item ${String(again.id)} is listed again in one read through the cursors (the page before: exchange ${prev.seq})`,
        'each item once',
        again.id,
        prev.seq,
      );
  }
  const key = orderKey(shape.orderBy, know.made);
  const ordered = orderProblem(items, shape.sign, key, prev?.order);
  if (ordered.problem) {
    const item = items[ordered.problem.index]!;
    const by = shape.orderBy === 'insertion' ? 'the order its items were made' : `${shape.orderBy}`;
    const first = prev !== undefined && ordered.problem.after !== undefined && !items.some((x) => x.id === ordered.problem!.after);
    push(
      `$.data[${ordered.problem.index}]`,
      `${s.opId}: item ${String(item.id)}${shape.orderBy === 'insertion' ? '' : ` (${shape.orderBy} ${String(item[shape.orderBy])})`} comes after ${String(ordered.problem.after)}${first ? ` (an earlier page's)` : ''}, made ${shape.sign > 0 ? 'before' : 'after'} it: the list is ${shape.sign > 0 ? 'oldest' : 'newest'} first by ${by} (ADR-048, ADR-081)`,
      shape.sign > 0 ? 'oldest first' : 'newest first',
      shape.orderBy === 'insertion' ? item.id : item[shape.orderBy],
      first ? prev.seq : undefined,
    );
  }
  if (walk) walk.items = walk.items.concat(items);
  if (typeof json.nextCursor === 'string')
    remember(
      j.memory.pages,
      `${m.id} ${s.opId} ${json.nextCursor}`,
      { ids: new Set(items.map((x) => x.id as string)), seq: s.seq, walk, order: ordered.state },
      j.memory.max,
    );
  else if (walk && json.nextCursor === null) {
    const want = know.expected?.(walk.query, walk.sentAt);
    if (want) {
      const listed = new Set(walk.items.map((x) => String(x[want.member])));
      for (const id of want.ids)
        if (!listed.has(id)) {
          const lastPage = items.map((x) => x[want.member]);
          if (!deletionRuledOut(j.memory, id, lastPage) && deletedUnseen(j, m)) break;
          push(
            '$.data',
            `${s.opId} read to its end (exchanges ${walk.first}–${s.seq}) does not list ${want.member} ${id}, made before the first page was asked for (ADR-028: a page skipped it)`,
            id,
            'not listed',
            walk.first,
          );
          break;
        }
    }
    if (know.complete) j.out.push(...know.complete(walk, s));
  }
}
