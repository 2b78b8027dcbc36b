/**
 * An importable request collection per variant (Postman Collection v2.1, which Bruno and
 * Insomnia import too), converted from the docs bundle by Postman's own converter
 * (openapi-to-postmanv2), one folder per tag: the sandbox flows are the `Sandbox` folder.
 * `npm run docs` writes them next to the reference pages, served from `/docs`.
 */
import { createRequire } from 'node:module';

type Json = Record<string, unknown>;

interface Converter {
  convert(
    input: { type: 'json'; data: Json },
    options: Json,
    cb: (err: Error | null, result: { result: boolean; reason?: string; output?: Array<{ type: string; data: Json }> }) => void,
  ): void;
}

const converter = createRequire(import.meta.url)('openapi-to-postmanv2') as Converter;

/** The collection's file name for `variant`. */
export const collectionFile = (variant: 1 | 2): string => `paylater-v${variant}.postman_collection.json`;

/**
 * `doc` with each type-less `const` schema given its value's JSON type. The converter reads a
 * schema without `type`, `enum` or `properties` as `type: object` (openapi-to-postmanv2's
 * deref.js), so the webhook events' `allOf` of WebhookTransactionData (`status`: a string enum)
 * and `{ status: { const: APPROVED } }` looked to it like string against object, and
 * json-schema-merge-allof printed an "Error while resolving allOf schema" trace per event and
 * variant. The contract's members agree; only the converter's copy is changed.
 */
export function typedConsts(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typedConsts);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, typedConsts(v)]));
  if ('const' in out && !('type' in out)) {
    const value = out.const;
    out.type = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  }
  return out;
}

/** Converts one bundled document to a Postman v2.1 collection (folders by tag, example values, `{{baseUrl}}` and `{{apiKey}}`). */
export function toPostmanCollection(doc: Json): Promise<Json> {
  return new Promise((resolve, reject) => {
    converter.convert(
      { type: 'json', data: typedConsts(doc) as Json },
      {
        folderStrategy: 'Tags',
        requestParametersResolution: 'Example',
        exampleParametersResolution: 'Example',
        includeAuthInfoInExample: true,
        optimizeConversion: false,
        stackLimit: 50,
      },
      (err, out) => {
        if (err) return reject(err);
        const data = out.output?.[0]?.data;
        if (!out.result || !data) return reject(new Error(`openapi-to-postmanv2: ${out.reason ?? 'no collection'}`));
        resolve(data);
      },
    );
  });
}
