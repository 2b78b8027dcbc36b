/**
 * A list read page by page (ADR-028, ADR-048), judged on live traffic: the page a cursor asks for
 * does not repeat an item of the page that gave the cursor; a page with a next cursor holds `limit`
 * items (only the last page is shorter); a filter (a query parameter named as an item member:
 * `transactionId`, `status`, `vendorReference`) lists only what it names; the items keep the list's order (`x-array-order` of its `data`, by the item's first
 * date-time member), judged between items the proxy saw made (`ours`: a list may hold items of
 * earlier runs whose times a sandbox reset leaves ahead of the clock). A list read to its end
 * through its cursors (the pages of one walk, from the first) is handed whole to the caller's
 * `complete`, and holds every item the caller `expected` when the walk began. What a list is, its
 * order, its time member and its page size are read from the contract's document once per operation.
 */
import type { Variant } from '../generated/index.ts';
import { resolveRef } from '../server/schema.ts';
import { compiledContract } from '../server/validate.ts';
import { routeTable } from '../server/routes.ts';
import { finding, type Observation, type StateFinding } from './finding.ts';

type Json = Record<string, unknown>;

/** A paged list's shape: its order (+1 oldest first, −1 newest first), the item member its order is by, its page size when `limit` is not given. */
interface ListShape {
  sign: number;
  time: string;
  limit: number;
  /** Its filters: the query parameters named as an item member (`transactionId`, `status`): an item shows the value asked for. */
  filters: string[];
}

const SHAPES = new Map<string, ListShape | null>();

/** The list shape of `op` (a 200 answer with `data` and `nextCursor`), or null when it is no paged list. */
function shapeOf(v: Variant, op: string): ListShape | null {
  const key = `${v} ${op}`;
  if (SHAPES.has(key)) return SHAPES.get(key)!;
  let shape: ListShape | null = null;
  const doc = compiledContract(v).doc;
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
  if (props?.nextCursor !== undefined && (order === 'newest-first' || order === 'oldest-first')) {
    const item = resolveRef(doc, data?.items);
    const members = (item?.properties ?? {}) as Json;
    const time = Object.keys(members).find((k) => resolveRef(doc, members[k])?.format === 'date-time');
    const filters = params
      .filter((x) => x?.in === 'query' && typeof x.name === 'string' && x.name in members)
      .map((x) => x!.name as string);
    if (time && typeof limit === 'number') shape = { sign: order === 'oldest-first' ? 1 : -1, time, limit, filters };
  }
  SHAPES.set(key, shape);
  return shape;
}

/** A walk through a list's pages from its first: the items so far, when its first page was asked for, its query (the cursor aside). */
export interface Walk {
  items: Json[];
  sentAt: number;
  query: URLSearchParams;
  first: number;
}

/** What a page left for the next: its items' ids, its last item (when ours), and the walk it belongs to. */
interface Left {
  ids: Set<string>;
  last: Json | undefined;
  seq: number;
  walk: Walk | undefined;
}

/** Most items a walk keeps (a longer list is judged page by page only). */
const WALK_ITEMS = 10_000;

/** What the caller knows of a list: which items are its own, what a whole walk must hold, what it judges on one. */
export interface ListKnowledge {
  ours: (item: Json) => boolean;
  /** The ids (of `member` in each item) a list read whole, whose walk began at `sentAt`, must hold. */
  expected?: (query: URLSearchParams, sentAt: number) => { member: string; ids: Iterable<string> } | undefined;
  /** The caller's own judgement of a whole walk. */
  complete?: (walk: Walk, ob: Observation) => StateFinding[];
}

export class PageJudge {
  /** merchant + operation + cursor → the page that gave the cursor (bounded). */
  private readonly byCursor = new Map<string, Left>();

  constructor(private readonly max: number) {}

  /** @judges partner-record, ADR-028 */
  page(ob: Observation, m: string, v: Variant, search: string, know: ListKnowledge): StateFinding[] {
    const { ours } = know;
    const shape = shapeOf(v, ob.opId);
    const json = ob.json as { data?: unknown; nextCursor?: unknown } | undefined;
    if (!shape || ob.status !== 200 || !json || !Array.isArray(json.data)) return [];
    const items = json.data.filter((x): x is Json => typeof x === 'object' && x !== null && typeof (x as Json).id === 'string');
    const out: StateFinding[] = [];
    const push = (jsonPath: string, message: string, expected: unknown, actual: unknown, earlier?: number) =>
      out.push(
        finding({
          kind: 'list',
          ob,
          tx: earlier === undefined ? undefined : { first: earlier, last: earlier },
          jsonPath,
          message,
          expected,
          actual,
        }),
      );
    const time = (x: Json) => (typeof x[shape.time] === 'string' ? Date.parse(x[shape.time] as string) : NaN);
    const wrongOrder = (a: Json, b: Json) => ours(a) && ours(b) && (time(b) - time(a)) * shape.sign < 0;
    const query = new URLSearchParams(search);
    const cursor = query.get('cursor');
    query.delete('cursor');
    const prev = cursor === null ? undefined : this.byCursor.get(`${m} ${ob.opId} ${cursor}`);
    for (const f of shape.filters) {
      const want = query.get(f);
      const other = want === null ? undefined : items.find((x) => f in x && x[f] !== want);
      if (other)
        push(
          `$.data[${items.indexOf(other)}].${f}`,
          `${ob.opId}?${f}=${want}: an item with ${f} ${JSON.stringify(other[f])} is listed; the filter lists only ${want}'s (ADR-028)`,
          want,
          other[f],
        );
    }
    const limit = Number(query.get('limit') ?? shape.limit);
    if (typeof json.nextCursor === 'string' && items.length < limit)
      push(
        '$.data',
        `${ob.opId}: a page with a next cursor holds ${items.length} items, limit ${limit}; a page holds \`limit\` items, only the last one fewer (ADR-028: an item skipped)`,
        limit,
        items.length,
      );
    if (prev) {
      const again = items.find((x) => prev.ids.has(x.id as string));
      if (again)
        push(
          '$.data',
          `${ob.opId}: item ${String(again.id)} of the page that gave this cursor (exchange ${prev.seq}) is listed again`,
          'each item once',
          again.id,
          prev.seq,
        );
      if (prev.last && items[0] && wrongOrder(prev.last, items[0]))
        push(
          '$.data[0]',
          `${ob.opId}: the page starts with ${String(items[0].id)} (${shape.time} ${String(items[0][shape.time])}), out of order after the previous page's ${String(prev.last.id)}`,
          shape.sign > 0 ? 'oldest first' : 'newest first',
          items[0][shape.time],
          prev.seq,
        );
    }
    for (let i = 1; i < items.length; i++)
      if (wrongOrder(items[i - 1]!, items[i]!)) {
        push(
          `$.data[${i}]`,
          `${ob.opId}: item ${String(items[i]!.id)} (${shape.time} ${String(items[i]![shape.time])}) comes after ${String(items[i - 1]!.id)} (${String(items[i - 1]![shape.time])}): the list is ${shape.sign > 0 ? 'oldest' : 'newest'} first`,
          shape.sign > 0 ? 'oldest first' : 'newest first',
          items[i]![shape.time],
        );
        break;
      }
    // the walk this page continues (the same query), or a new one from the first page
    const base = cursor === null ? { items: [], sentAt: ob.sentAt, query, first: ob.seq } : prev?.walk;
    const walk = base && base.query.toString() === query.toString() && base.items.length + items.length <= WALK_ITEMS ? base : undefined;
    if (walk) walk.items = walk.items.concat(items);
    if (typeof json.nextCursor === 'string') {
      this.byCursor.set(`${m} ${ob.opId} ${json.nextCursor}`, {
        ids: new Set(items.map((x) => x.id as string)),
        last: items.at(-1),
        seq: ob.seq,
        walk,
      });
      if (this.byCursor.size > this.max) this.byCursor.delete(this.byCursor.keys().next().value as string);
    } else if (walk && json.nextCursor === null) {
      const want = know.expected?.(walk.query, walk.sentAt);
      if (want) {
        const listed = new Set(walk.items.map((x) => String(x[want.member])));
        for (const id of want.ids)
          if (!listed.has(id)) {
            push(
              '$.data',
              `${ob.opId} read to its end (exchanges ${walk.first}–${ob.seq}) does not list ${want.member} ${id}, made before the first page was asked for (ADR-028: a page skipped it)`,
              id,
              'not listed',
              walk.first,
            );
            break;
          }
      }
      if (know.complete) out.push(...know.complete(walk, ob));
    }
    return out;
  }
}
