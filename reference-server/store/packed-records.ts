/**
 * Records kept in memory as compact text, one string per record, decoded on each read.
 *
 * A JS object per record costs its header, a slot per field, a string object per string value
 * (the same `merchantId` or ISO timestamp again and again) and the nested item objects: about
 * 750 bytes of heap for one partner transaction. One flat string holding the values in JSON
 * costs about 300: the field names are kept once per *shape* (the ordered names of an object's
 * fields, interned here), timestamps in `toISOString()` form are kept as epoch milliseconds, and
 * the record's `id`, when it is the map key, is not repeated. A read decodes a fresh object, so
 * no caller can change a stored record in place.
 *
 * Encoding (JSON text): an object is `[shape, ...values]` (`shape` ≥ 0: an index into the
 * shape table), an array is `[-1, ...items]`, anything else is itself. A field's tag in its
 * shape says how its value is kept: as it is (0), as epoch ms of an ISO timestamp (1), or left
 * out because it equals the key (2). What JSON cannot hold (`undefined` members) is dropped, as
 * the journal and the data file drop it.
 */
import { ShardedMap } from './sharded-map.ts';

const AS_IS = 0;
const TIMESTAMP = 1;
const THE_KEY = 2;
type Tag = typeof AS_IS | typeof TIMESTAMP | typeof THE_KEY;
const ARRAY = -1;

/** One shape: its field names and tags, in order. */
interface Shape {
  names: string[];
  tags: Tag[];
}
const shapeIds = new Map<string, number>();
const shapes: Shape[] = [];

function shapeOf(names: string[], tags: Tag[]): number {
  let sig = '';
  for (let i = 0; i < names.length; i++) sig += `${tags[i]}${names[i]}\u0000`;
  let id = shapeIds.get(sig);
  if (id === undefined) {
    id = shapes.length;
    shapes.push({ names, tags });
    shapeIds.set(sig, id);
  }
  return id;
}

const ISO_LENGTH = 24; // YYYY-MM-DDTHH:mm:ss.sssZ

/** The epoch ms of `s` when `s` is exactly what `toISOString()` prints for it, else NaN. */
function timestampOf(s: string): number {
  if (s.length !== ISO_LENGTH || s.charCodeAt(10) !== 0x54 /* T */ || s.charCodeAt(23) !== 0x5a /* Z */) return NaN;
  const ms = Date.parse(s);
  return Number.isFinite(ms) && new Date(ms).toISOString() === s ? ms : NaN;
}

function encodeValue(v: unknown, key: string | null): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return encodeValue((v as { toJSON: () => unknown }).toJSON(), key); // a Date: as JSON keeps it
  if (Array.isArray(v)) {
    const out: unknown[] = [ARRAY];
    for (const x of v) out.push(x === undefined ? null : encodeValue(x, null)); // JSON's rule for arrays
    return out;
  }
  const names: string[] = [];
  const tags: Tag[] = [];
  const values: unknown[] = [0];
  for (const name of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[name];
    if (x === undefined || typeof x === 'function') continue; // JSON drops them
    names.push(name);
    if (key !== null && name === 'id' && x === key) {
      tags.push(THE_KEY);
      continue;
    }
    const ms = typeof x === 'string' ? timestampOf(x) : NaN;
    if (!Number.isNaN(ms)) {
      tags.push(TIMESTAMP);
      values.push(ms);
    } else {
      tags.push(AS_IS);
      values.push(encodeValue(x, null));
    }
  }
  values[0] = shapeOf(names, tags);
  return values;
}

function decodeValue(x: unknown, key: string): unknown {
  if (!Array.isArray(x)) return x;
  const head = x[0] as number;
  if (head === ARRAY) {
    const out = new Array<unknown>(x.length - 1);
    for (let i = 1; i < x.length; i++) out[i - 1] = decodeValue(x[i], key);
    return out;
  }
  const shape = shapes[head];
  if (!shape) throw new Error(`packed record: unknown shape ${head}`);
  const o: Record<string, unknown> = {};
  let j = 1;
  for (let i = 0; i < shape.names.length; i++) {
    const tag = shape.tags[i];
    const value = tag === THE_KEY ? key : tag === TIMESTAMP ? new Date(x[j++] as number).toISOString() : decodeValue(x[j++], key);
    const name = shape.names[i]!;
    if (name === '__proto__') Object.defineProperty(o, name, { value, enumerable: true, writable: true, configurable: true });
    else o[name] = value; // an own member, as JSON.parse makes it
  }
  return o;
}

/** `record` (a JSON-able object stored under `key`) as compact text. */
export function packRecord(key: string, record: object): string {
  return JSON.stringify(encodeValue(record, key));
}

/** The record `packRecord(key, …)` packed, as a fresh object. */
export function unpackRecord<V>(key: string, packed: string): V {
  return decodeValue(JSON.parse(packed), key) as V;
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
