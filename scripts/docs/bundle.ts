/**
 * The DOCS bundle of a variant: the bundled document of generated/ (exactly what the server and the
 * conformance suite load), minus the `x-internal` operations (called by the browser SDK, not by
 * merchants), plus generated `x-codeSamples` on every operation. spec/ stays the source: nothing
 * here is written back.
 */
import { loadBundledDocument } from '../../generated/index.ts';
import { HTTP_METHODS, codeSamples, listOperations } from './samples.ts';

type Json = Record<string, unknown>;

export function isInternal(op: Json): boolean {
  return op['x-internal'] === true;
}

/** Removes `x-internal` operations (and paths and tags left empty by that). */
export function stripInternal(doc: Json): Json {
  const paths = (doc.paths ?? {}) as Json;
  for (const [p, item] of Object.entries(paths)) {
    const pathItem = item as Json;
    if (typeof pathItem.$ref === 'string') continue;
    for (const m of HTTP_METHODS) {
      const op = pathItem[m] as Json | undefined;
      if (op && isInternal(op)) delete pathItem[m];
    }
    if (!HTTP_METHODS.some((m) => pathItem[m])) delete paths[p];
  }
  if (Array.isArray(doc.tags)) doc.tags = (doc.tags as Json[]).filter((t) => t['x-internal'] !== true);
  return doc;
}

export function docsBundle(variant: 1 | 2): Json {
  const doc = stripInternal(loadBundledDocument(variant));
  for (const ref of listOperations(doc)) {
    // listOperations resolves path items; write onto the object held by the document itself.
    const item = (doc.paths as Json)[ref.path] as Json;
    const op = item[ref.method.toLowerCase()] as Json;
    op['x-codeSamples'] = codeSamples(doc, ref, variant);
  }
  return doc;
}
