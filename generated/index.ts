/**
 * GENERATED FILE — DO NOT EDIT.
 * Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.
 */
import { fileURLToPath } from 'node:url';
import { documentText as v1Text } from './v1/document.ts';
import { documentText as v2Text } from './v2/document.ts';

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

const texts: Record<Variant, string> = { 1: v1Text, 2: v2Text };
const cache = new Map<Variant, Record<string, unknown>>();
/** The bundled OpenAPI document of a variant, parsed once from its JSON text (a fresh deep copy each call). */
export function loadBundledDocument(variant: Variant): Record<string, unknown> {
  let doc = cache.get(variant);
  if (!doc) {
    doc = JSON.parse(texts[variant]) as Record<string, unknown>;
    cache.set(variant, doc);
  }
  return structuredClone(doc);
}
