/**
 * A pure function's results remembered for the keys asked lately: traffic asks the same few things
 * again and again (a polled record's text, its path, its timestamps).
 */

/**
 * `compute`, remembering its result for at most `max` keys, then starting afresh (no order kept
 * per key: the memo stays as cheap as one lookup). `compute` must be pure: a remembered result is
 * handed out again, so a shared object should be one nobody changes (frozen).
 */
export function memoized<K, V>(max: number, compute: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    let v = kept.get(key);
    if (v === undefined && !kept.has(key)) {
      v = compute(key);
      if (kept.size >= max) kept.clear();
      kept.set(key, v);
    }
    return v as V;
  };
}
