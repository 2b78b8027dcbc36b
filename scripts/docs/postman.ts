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

/** Converts one bundled document to a Postman v2.1 collection (folders by tag, example values, `{{baseUrl}}` and `{{apiKey}}`). */
export function toPostmanCollection(doc: Json): Promise<Json> {
  return new Promise((resolve, reject) => {
    converter.convert(
      { type: 'json', data: doc },
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
