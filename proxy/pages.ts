/**
 * A list read page by page (ADR-028, ADR-048), judged on live traffic: the page a cursor asks for
 * does not repeat an item of the page that gave the cursor, and the items keep the list's order
 * (`x-array-order` of its `data`, by the item's first date-time member), judged between items the
 * proxy saw made (`ours`: a list may hold items of earlier runs whose times a sandbox reset
 * leaves ahead of the clock). What a list is, its order and its time member are read from the
 * contract's document once per operation.
 */
import type { Variant } from '../generated/index.ts';
import { resolveRef } from '../server/schema.ts';
import { compiledContract } from '../server/validate.ts';
import { routeTable } from '../server/routes.ts';
import { finding, type Observation, type StateFinding } from './finding.ts';

type Json = Record<string, unknown>;

/** A paged list's shape: its order (+1 oldest first, −1 newest first) and the item member its order is by. */
interface ListShape {
  sign: number;
  time: string;
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
  const answer = entry
    ? resolveRef(doc, (paths?.[entry.path]?.[entry.method.toLowerCase()]?.responses as Json | undefined)?.['200'])
    : null;
  const body = resolveRef(doc, ((answer?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema);
  const props = body?.properties as Json | undefined;
  const data = resolveRef(doc, props?.data);
  const order = data?.['x-array-order'];
  if (props?.nextCursor !== undefined && (order === 'newest-first' || order === 'oldest-first')) {
    const item = resolveRef(doc, data?.items);
    const members = (item?.properties ?? {}) as Json;
    const time = Object.keys(members).find((k) => resolveRef(doc, members[k])?.format === 'date-time');
    if (time) shape = { sign: order === 'oldest-first' ? 1 : -1, time };
  }
  SHAPES.set(key, shape);
  return shape;
}

/** What a page left for the next: its items' ids and its last item (when ours). */
interface Left {
  ids: Set<string>;
  last: Json | undefined;
  seq: number;
}

export class PageJudge {
  /** merchant + operation + cursor → the page that gave the cursor (bounded). */
  private readonly byCursor = new Map<string, Left>();

  constructor(private readonly max: number) {}

  /** @judges partner-record */
  page(ob: Observation, m: string, v: Variant, search: string, ours: (item: Json) => boolean): StateFinding[] {
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
    const cursor = new URLSearchParams(search).get('cursor');
    const prev = cursor === null ? undefined : this.byCursor.get(`${m} ${ob.opId} ${cursor}`);
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
    if (typeof json.nextCursor === 'string') {
      this.byCursor.set(`${m} ${ob.opId} ${json.nextCursor}`, {
        ids: new Set(items.map((x) => x.id as string)),
        last: items.at(-1),
        seq: ob.seq,
      });
      if (this.byCursor.size > this.max) this.byCursor.delete(this.byCursor.keys().next().value as string);
    }
    return out;
  }
}
