/**
 * Semantic comparison of JSON values, as the suite judges them: an object's members are compared
 * whatever their order (RFC 8259), an array in order only where the contract marks its order
 * (`x-array-order`, ADR-048); an unmarked array is compared as a multiset of its elements.
 */
import { stableJson } from '../lib/json.ts';

/** Whether `a` and `b` are the same JSON value; `ordered`: whether the order of a top-level array counts. */
export function sameJson(a: unknown, b: unknown, ordered = true): boolean {
  if (!ordered && Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    const as = a.map(stableJson).sort();
    const bs = b.map(stableJson).sort();
    return as.every((x, i) => x === bs[i]);
  }
  return stableJson(a) === stableJson(b);
}

/** A JSON text in a form that is equal for equal values whatever their members' order; other text as it is. */
export function canonicalText(text: string): string {
  try {
    return stableJson(JSON.parse(text));
  } catch {
    return text;
  }
}
