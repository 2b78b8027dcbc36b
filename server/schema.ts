/** Walking a bundled document's schemas: `$ref`s, `allOf` layers, the nearest `x-` extension along a path. */

import { valueAt } from '../lib/json-pointer.ts';

type Json = Record<string, unknown>;

export function resolveRef(doc: Json, schema: unknown): Json | null {
  let s = schema as Json | null;
  for (let i = 0; s && typeof s === 'object' && typeof s.$ref === 'string' && i < 32; i++) s = valueAt(doc, s.$ref) as Json | null;
  return s && typeof s === 'object' ? s : null;
}

/** Every schema that applies at this level: the schema itself, its $ref target, allOf members. */
function layers(doc: Json, schema: unknown, out: Json[] = [], depth = 0): Json[] {
  if (depth > 16 || !schema || typeof schema !== 'object') return out;
  const s = schema as Json;
  out.push(s);
  if (typeof s.$ref === 'string') layers(doc, resolveRef(doc, s), out, depth + 1);
  if (Array.isArray(s.allOf)) for (const a of s.allOf) layers(doc, a, out, depth + 1);
  return out;
}

/** The value of `key` on the deepest schema along `segments` that declares it. */
export function nearestExtension(doc: Json, root: unknown, segments: string[], key: string): unknown {
  let found: unknown;
  let level: Json[] = layers(doc, root);
  for (const l of level) if (l[key] !== undefined) found = l[key];
  for (const seg of segments) {
    const next: Json[] = [];
    for (const l of level) {
      const props = l.properties as Json | undefined;
      if (props && props[seg] !== undefined) layers(doc, props[seg], next);
      if (/^[0-9]+$/.test(seg) && l.items) layers(doc, l.items, next);
    }
    if (next.length === 0) break;
    for (const l of next) if (l[key] !== undefined) found = l[key];
    level = next;
  }
  return found;
}

/** The `application/json` request body schema of the operation at `method` `path` of `doc` (may be a $ref), or null. */
export function requestSchemaOf(doc: Json, method: string, path: string): Json | null {
  const op = ((doc.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
  const body = resolveRef(doc, op?.requestBody);
  return (((body?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json) ?? null;
}
