/**
 * The value a JSON pointer (RFC 6901, or its `#` fragment form) names in a JSON value: the
 * contract's facts (spec-fact.ts), a `$ref`'s target (server/schema.ts, server/validate.ts), a
 * refusal's body member (judge/request.ts). Own members only: a key such as `toString` names
 * nothing in JSON.
 */
export function valueAt(root: unknown, pointer: string): unknown {
  const path = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (path === '') return root;
  if (!path.startsWith('/')) return undefined;
  let v: unknown = root;
  for (const part of path.slice(1).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    v = v !== null && typeof v === 'object' && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
  }
  return v;
}
