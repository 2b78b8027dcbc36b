/**
 * A map split into a fixed number of `Map`s by a hash of the key. A JS `Map` grows
 * by rehashing every entry at once when it fills: at 262,144 entries that one insertion blocks
 * the event loop for ~25 ms, at 524,288 ~45 ms, and the store keeps several maps that size.
 * Split in 64, each part rehashes a 64th of the entries, so no insertion blocks for long at any
 * size. Iteration goes part by part: insertion order is kept within a part only, so use it
 * where order does not matter.
 */
const SHARDS = 64;

/** FNV-1a over the string's UTF-16 code units, as an unsigned 32-bit integer. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A 31-bit hash of `s`: a number V8 keeps unboxed (a small integer), to key a map by instead of a copy of `s`. */
export function hash31(s: string): number {
  return fnv1a(s) & 0x7fffffff;
}

function shardOf(key: string | number): number {
  return (typeof key === 'number' ? key >>> 0 : fnv1a(key)) % SHARDS;
}

/** Keys are strings, or integers (spread by their low bits). */
export class ShardedMap<V, K extends string | number = string> implements Iterable<[K, V]> {
  private readonly parts: Map<K, V>[] = Array.from({ length: SHARDS }, () => new Map<K, V>());
  private count = 0;

  get size(): number {
    return this.count;
  }
  /** The entries of the largest part: the most one insertion can rehash (for tests and diagnostics). */
  get largestPart(): number {
    return Math.max(...this.parts.map((p) => p.size));
  }
  get(key: K): V | undefined {
    return this.parts[shardOf(key)]!.get(key);
  }
  has(key: K): boolean {
    return this.parts[shardOf(key)]!.has(key);
  }
  set(key: K, value: V): this {
    const part = this.parts[shardOf(key)]!;
    const before = part.size;
    part.set(key, value);
    this.count += part.size - before;
    return this;
  }
  delete(key: K): boolean {
    const gone = this.parts[shardOf(key)]!.delete(key);
    if (gone) this.count -= 1;
    return gone;
  }
  *keys(): IterableIterator<K> {
    for (const p of this.parts) yield* p.keys();
  }
  *values(): IterableIterator<V> {
    for (const p of this.parts) yield* p.values();
  }
  *entries(): IterableIterator<[K, V]> {
    for (const p of this.parts) yield* p.entries();
  }
  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }
}
