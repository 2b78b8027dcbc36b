/** The 413 answer states the body limit (`x-max-body-bytes`) exactly as the spec's example shows it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { maxBodyBytes } from '../generated/contract.ts';
import { objectAt } from '../lib/json.ts';
import { errorOf, partnerBody, server } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

let s: TestServer;
let api: Api;
beforeAll(async () => {
  ({ s, api } = await server());
});
afterAll(() => s.close());

describe('413 PAYLOAD_TOO_LARGE', () => {
  it('says the message of the spec example, which states x-max-body-bytes in kB', async () => {
    const example = objectAt(
      loadBundledDocument(1),
      'components',
      'responses',
      'PayloadTooLarge',
      'content',
      'application/json',
      'examples',
      'PAYLOAD_TOO_LARGE',
      'value',
      'error',
    );
    expect(example.message).toBe(`Request body exceeds ${maxBodyBytes / 1024} kB`);
    const r = await api('POST', '/api/v1/public/partner/transactions', {
      headers: { 'X-Service-Key': s.merchants[0]!.apiKey },
      json: partnerBody({ pad: 'x'.repeat(maxBodyBytes + 1) }),
    });
    expect(r.status, r.text).toBe(413);
    expect(errorOf(r)).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: example.message });
  });
});
