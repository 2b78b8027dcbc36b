/**
 * Records kept in memory as compact text, one string per record, decoded on each read.
 *
 * A JS object per record costs its header, a slot per field, a string object per string value
 * (the same `merchantId` or ISO timestamp again and again) and the nested item objects. One flat
 * string holding the values in JSON costs less than half: the field names are kept once per
 * *shape* (the ordered names of an object's fields, interned here), timestamps in `toISOString()`
 * form are kept as epoch milliseconds, the record's `id`, when it is the map key, is not
 * repeated, and values drawn from small sets are kept once in a dictionary
 * (`store-200k-latency`: the store's JS heap per stored transaction went from 870 bytes with
 * objects to 395 packed, with the store's hashed vendorReference index). A read decodes a fresh
 * object, so no caller can change a stored record in place.
 *
 * Encoding (JSON text): an object is `[shape, ...values]` (`shape` ≥ 0: an index into the
 * shape table), an array is `[-1, ...items]`, anything else is itself. A field's tag in its
 * shape says how its value is kept: as it is (0), as epoch ms of an ISO timestamp (1), left
 * out because it equals the key (2), or as an index into the dictionary of values drawn from
 * small sets (3, `DICTIONARY_FIELDS`). What JSON cannot hold (`undefined` members) is dropped, as
 * the journal and the data file drop it.
 */
import { ShardedMap } from './sharded-map.ts';

const AS_IS = 0;
const TIMESTAMP = 1;
const THE_KEY = 2;
const IN_DICTIONARY = 3;
type Tag = typeof AS_IS | typeof TIMESTAMP | typeof THE_KEY | typeof IN_DICTIONARY;
const ARRAY = -1;

/**
 * Fields whose string values come from small sets in this API: the merchant id (every record of
 * a merchant carries it; merchants are few) and the enums (transaction kind and status, currency,
 * payment intent flow and locale, webhook event and delivery state). Their values are kept once,
 * in `dictionary`, and a record holds the index: a transaction's merchant id, kind, status and
 * currency take 4 characters instead of ~54.
 */
const DICTIONARY_FIELDS: ReadonlySet<string> = new Set(['merchantId', 'kind', 'status', 'currency', 'flow', 'locale', 'event', 'state']);
/** At most this many values are kept: past it (a field used otherwise than expected), new values are kept as they are. */
export const DICTIONARY_LIMIT = 4096;
const dictionary: string[] = [];
const dictionaryCodes = new Map<string, number>();

/** `s`'s index in the dictionary (added if there is room), or -1. */
function dictionaryCode(s: string): number {
  let code = dictionaryCodes.get(s);
  if (code === undefined) {
    if (dictionary.length >= DICTIONARY_LIMIT) return -1;
    code = dictionary.push(s) - 1;
    dictionaryCodes.set(s, code);
  }
  return code;
}

/** One shape: its field names and tags, in order, and where each named field's value sits. */
interface Shape {
  names: string[];
  tags: Tag[];
  /** Per field name: its tag and its value's index in the packed array (none for `THE_KEY`). */
  at: Map<string, { tag: Tag; index: number }>;
}
const shapes: Shape[] = [];

/**
 * Shapes are found by walking a tree field by field (as V8 finds hidden classes), so packing a
 * record builds no key: a node is the fields so far, with the shape that ends there, if any.
 */
interface ShapeNode {
  parent: ShapeNode | null;
  name: string;
  tag: Tag;
  next: Map<string, ShapeNode>[];
  shape: number;
}
const newNode = (parent: ShapeNode | null, name: string, tag: Tag): ShapeNode => ({ parent, name, tag, next: [], shape: -1 });
const root = newNode(null, '', AS_IS);

/**
 * At most this many nodes (and so shapes) are kept: they live as long as the process. The
 * records' field names come from the server's record types (the spec closes every object), so
 * a few dozen are in use; past the limit (a data file edited by hand, say), an object of a new
 * shape is packed with its field names inline (`INLINE`), and memory stays bounded.
 */
export const SHAPE_NODE_LIMIT = 65_536;
/** An object packed with its names: `[INLINE, name, value, name, value, …]`, values packed as array items are. */
const INLINE = -2;
/** Nodes made so far (for tests). */
export const shapeStats = { nodes: 1 };

/** The node after `node` for field `name` kept as `tag`; null when it would be a new one past `SHAPE_NODE_LIMIT`. */
function nextNode(node: ShapeNode, name: string, tag: Tag): ShapeNode | null {
  let n = node.next[tag]?.get(name);
  if (!n) {
    if (shapeStats.nodes >= SHAPE_NODE_LIMIT) return null;
    shapeStats.nodes += 1;
    (node.next[tag] ??= new Map()).set(name, (n = newNode(node, name, tag)));
  }
  return n;
}

function shapeAt(node: ShapeNode): number {
  if (node.shape >= 0) return node.shape;
  const names: string[] = [];
  const tags: Tag[] = [];
  for (let n: ShapeNode = node; n.parent; n = n.parent) {
    names.unshift(n.name);
    tags.unshift(n.tag);
  }
  const at = new Map<string, { tag: Tag; index: number }>();
  let index = 1;
  for (let i = 0; i < names.length; i++) at.set(names[i]!, { tag: tags[i]!, index: tags[i] === THE_KEY ? -1 : index++ });
  node.shape = shapes.length;
  shapes.push({ names, tags, at });
  return node.shape;
}

const ISO_LENGTH = 24; // YYYY-MM-DDTHH:mm:ss.sssZ
/** Where `toISOString()` puts its separators (every other character of the 24 is a digit). */
const SEPARATORS: ReadonlyMap<number, number> = new Map([
  [4, 0x2d], // -
  [7, 0x2d],
  [10, 0x54], // T
  [13, 0x3a], // :
  [16, 0x3a],
  [19, 0x2e], // .
  [23, 0x5a], // Z
]);
const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's `days_from_civil`). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/**
 * The epoch ms of `s` when `s` is exactly what `toISOString()` prints for it (years 0000-9999:
 * every field in range, so printing the ms gives `s` back), else NaN. Read by hand: the store
 * packs three of these per transaction, and `Date.parse` plus a round trip cost ~1 µs each.
 */
function timestampOf(s: string): number {
  if (s.length !== ISO_LENGTH) return NaN;
  for (let i = 0; i < ISO_LENGTH; i++) {
    const c = s.charCodeAt(i);
    const sep = SEPARATORS.get(i);
    if (sep === undefined ? c < 0x30 || c > 0x39 : c !== sep) return NaN;
  }
  const n = (from: number, to: number): number => {
    let v = 0;
    for (let i = from; i < to; i++) v = v * 10 + s.charCodeAt(i) - 0x30;
    return v;
  };
  const [y, mo, d, h, mi, sec, ms] = [n(0, 4), n(5, 7), n(8, 10), n(11, 13), n(14, 16), n(17, 19), n(20, 23)];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || sec > 59) return NaN;
  return daysFromCivil(y, mo, d) * DAY_MS + ((h * 60 + mi) * 60 + sec) * 1000 + ms;
}

function encodeValue(v: unknown, key: string | null): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return encodeValue((v as { toJSON: () => unknown }).toJSON(), key); // a Date: as JSON keeps it
  if (Array.isArray(v)) {
    const out: unknown[] = [ARRAY];
    for (const x of v) out.push(x === undefined ? null : encodeValue(x, null)); // JSON's rule for arrays
    return out;
  }
  let node: ShapeNode | null = root;
  const values: unknown[] = [0];
  for (const name of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[name];
    if (x === undefined || typeof x === 'function') continue; // JSON drops them
    if (key !== null && name === 'id' && x === key) {
      node = nextNode(node, name, THE_KEY);
      if (!node) return encodeInline(v);
      continue;
    }
    const code = typeof x === 'string' && DICTIONARY_FIELDS.has(name) ? dictionaryCode(x) : -1;
    const ms = code < 0 && typeof x === 'string' ? timestampOf(x) : NaN;
    const tag = code >= 0 ? IN_DICTIONARY : !Number.isNaN(ms) ? TIMESTAMP : AS_IS;
    node = nextNode(node, name, tag);
    if (!node) return encodeInline(v);
    values.push(tag === IN_DICTIONARY ? code : tag === TIMESTAMP ? ms : encodeValue(x, null));
  }
  values[0] = shapeAt(node);
  return values;
}

/** `v` packed with its field names inline (no shape). */
function encodeInline(v: object): unknown[] {
  const out: unknown[] = [INLINE];
  for (const name of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[name];
    if (x !== undefined && typeof x !== 'function') out.push(name, encodeValue(x, null));
  }
  return out;
}

/** Sets member `name` of `o` as JSON.parse would: an own member, `__proto__` included. */
function setMember(o: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(o, name, { value, enumerable: true, writable: true, configurable: true });
  else o[name] = value;
}

function decodeValue(x: unknown, key: string): unknown {
  if (!Array.isArray(x)) return x;
  const head = x[0] as number;
  if (head === ARRAY) {
    const out = new Array<unknown>(x.length - 1);
    for (let i = 1; i < x.length; i++) out[i - 1] = decodeValue(x[i], key);
    return out;
  }
  if (head === INLINE) {
    const o: Record<string, unknown> = {};
    for (let i = 1; i < x.length; i += 2) setMember(o, x[i] as string, decodeValue(x[i + 1], key));
    return o;
  }
  const shape = shapes[head];
  if (!shape) throw new Error(`packed record: unknown shape ${head}`);
  const o: Record<string, unknown> = {};
  let j = 1;
  for (let i = 0; i < shape.names.length; i++) {
    const tag = shape.tags[i];
    const value =
      tag === THE_KEY
        ? key
        : tag === TIMESTAMP
          ? new Date(x[j++] as number).toISOString()
          : tag === IN_DICTIONARY
            ? dictionary[x[j++] as number]
            : decodeValue(x[j++], key);
    setMember(o, shape.names[i]!, value);
  }
  return o;
}

/** `record` (a JSON-able object stored under `key`) as compact text. */
export function packRecord(key: string, record: object): string {
  return JSON.stringify(encodeValue(record, key));
}

/** Records decoded so far (for tests: which reads decode what). */
export const packedStats = { decodes: 0 };

/** The record `packRecord(key, …)` packed, as a fresh object. */
export function unpackRecord<V>(key: string, packed: string): V {
  packedStats.decodes += 1;
  return decodeValue(JSON.parse(packed), key) as V;
}

/**
 * The time in field `name` of a packed record (epoch ms), without decoding the rest: NaN when the
 * record has no such field or it holds no date.
 */
export function packedTime(packed: string, name: string): number {
  const x = JSON.parse(packed) as unknown[];
  if (x[0] === INLINE) {
    for (let i = 1; i < x.length; i += 2) if (x[i] === name) return typeof x[i + 1] === 'string' ? Date.parse(x[i + 1] as string) : NaN;
    return NaN;
  }
  const field = shapes[x[0] as number]?.at.get(name);
  if (!field || field.tag === THE_KEY) return NaN;
  const v = field.tag === IN_DICTIONARY ? dictionary[x[field.index] as number] : x[field.index];
  return field.tag === TIMESTAMP ? (v as number) : typeof v === 'string' ? Date.parse(v) : NaN;
}

/** A `ShardedMap` of records kept packed: `get` and iteration decode, `set` encodes. */
export class PackedMap<V extends object> implements Iterable<[string, V]> {
  private readonly map = new ShardedMap<string>();

  get size(): number {
    return this.map.size;
  }
  get largestPart(): number {
    return this.map.largestPart;
  }
  get(key: string): V | undefined {
    const s = this.map.get(key);
    return s === undefined ? undefined : unpackRecord<V>(key, s);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  /** `packed`: `value` already packed under `key`. */
  set(key: string, value: V, packed?: string): this {
    this.map.set(key, packed ?? packRecord(key, value));
    return this;
  }
  delete(key: string): boolean {
    return this.map.delete(key);
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  *values(): IterableIterator<V> {
    for (const [k, s] of this.map) yield unpackRecord<V>(k, s);
  }
  *entries(): IterableIterator<[string, V]> {
    for (const [k, s] of this.map) yield [k, unpackRecord<V>(k, s)];
  }
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}
