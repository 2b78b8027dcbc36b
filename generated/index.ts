/**
 * GENERATED FILE — DO NOT EDIT.
 * Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export * from './contract.ts';
export { createMerchantClientV1, type MerchantClientV1 } from './v1/client.ts';
export type * as V1 from './v1/schema.d.ts';
export { createMerchantClientV2, type MerchantClientV2 } from './v2/client.ts';
export type * as V2 from './v2/schema.d.ts';

export type Variant = 1 | 2;
export const VARIANTS: readonly Variant[] = [1, 2];

/** Absolute path of the bundled OpenAPI document of a variant. */
export function bundledDocumentPath(variant: Variant): string {
  return fileURLToPath(new URL(`./v${variant}/openapi.yaml`, import.meta.url));
}

const cache = new Map<Variant, Record<string, unknown>>();
/** The bundled OpenAPI document of a variant, parsed (a fresh deep copy each call). */
export function loadBundledDocument(variant: Variant): Record<string, unknown> {
  let doc = cache.get(variant);
  if (!doc) {
    doc = YAML.parse(readFileSync(bundledDocumentPath(variant), 'utf8')) as Record<string, unknown>;
    cache.set(variant, doc);
  }
  return structuredClone(doc);
}
