/**
 * A pure function's results remembered for the keys asked lately: traffic asks the same few things
 * again and again (a polled record's text, its path, its timestamps).
 */

/**
 * `compute`, remembering its result for at most `max` keys, then starting afresh (no order kept
 * per key: the memo stays as cheap as one lookup). `compute` must be pure: a remembered result is
 * handed out again, so a shared object should be one nobody changes (frozen). A string key longer
 * than `longestKey` is computed each time and not remembered: what the memo holds stays bounded
 * by its count whatever the traffic carries (a 16 KiB path, a megabyte in a date field).
 */
export function memoized<K, V>(max: number, compute: (key: K) => V, longestKey = Infinity): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    if (typeof key === 'string' && key.length > longestKey) return compute(key);
    let v = kept.get(key);
    if (v === undefined && !kept.has(key)) {
      v = compute(key);
      if (kept.size >= max) kept.clear();
      kept.set(key, v);
    }
    return v as V;
  };
}
