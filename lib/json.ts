/**
 * Narrowing helpers for parsed JSON and YAML (spec documents, API answers): reach into an
 * untyped value by a path and get an object or an array back, or an error naming the path.
 */

/** A parsed JSON object (or YAML mapping). */
export type Json = Record<string, unknown>;

/** A body's JSON, or undefined (none, or not JSON). */
export function jsonOf(text: string | undefined): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** A key of an object or an index of an array. */
export type JsonKey = string | number;

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const describePath = (path: readonly JsonKey[]) => (path.length ? path.map(String).join(' › ') : 'the root');

/** The value at `path` under `root` (strings index objects, numbers index arrays); throws when a step is missing. */
export function valueAt(root: unknown, ...path: JsonKey[]): unknown {
  let current = root;
  for (const [i, key] of path.entries()) {
    if (typeof key === 'number' ? !Array.isArray(current) : !isJson(current)) {
      throw new TypeError(`${describePath(path.slice(0, i))} is not ${typeof key === 'number' ? 'an array' : 'an object'}`);
    }
    current = (current as Record<JsonKey, unknown>)[key];
  }
  return current;
}

/** The object at `path` under `root`; throws naming the path when it is not an object. */
export function objectAt(root: unknown, ...path: JsonKey[]): Json {
  const value = valueAt(root, ...path);
  if (!isJson(value)) throw new TypeError(`${describePath(path)} is not an object`);
  return value;
}

/** The array at `path` under `root`; throws naming the path when it is not an array. */
export function arrayAt(root: unknown, ...path: JsonKey[]): unknown[] {
  const value = valueAt(root, ...path);
  if (!Array.isArray(value)) throw new TypeError(`${describePath(path)} is not an array`);
  return value as unknown[];
}

/** A value as message text: primitives as `String` writes them, objects and arrays as JSON (never `[object Object]`). */
export function textOf(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/**
 * A value as JSON text with every object's members in key order, so two values compare equal
 * as text exactly when they are equal as data whatever their key order. Absent (`undefined`)
 * is `none`, which no JSON text is, so it differs from every present value (`null` included)
 * and equals only itself.
 */
export function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_k, x: unknown) =>
      isJson(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
    ) ?? 'none'
  );
}
