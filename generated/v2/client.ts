/**
 * GENERATED FILE — DO NOT EDIT.
 * Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths, webhooks } from './schema.d.ts';

export type { components, operations, paths, webhooks };

/** A typed openapi-fetch client for Variant 2 of the merchant API. */
export type MerchantClientV2 = Client<paths>;

/** Creates a typed openapi-fetch client for Variant 2. Pass `baseUrl`, and `fetch` to inject one. */
export function createMerchantClientV2(options: ClientOptions = {}): MerchantClientV2 {
  return createClient<paths>(options);
}
