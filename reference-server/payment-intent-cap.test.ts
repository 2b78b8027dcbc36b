/** One session token cannot create payment intents without bound (ADR-029, `x-max-payment-intents`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { server, sessionBodyV1 } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

const max = (loadBundledDocument(1).paths as Record<string, { post: Record<string, unknown> }>)['/api/v1/public/sdk/payment-intents']!.post[
  'x-max-payment-intents'
] as number;

let s: TestServer;
let api: Api;
beforeAll(async () => {
  ({ s, api } = await server());
});
afterAll(() => s.close());

async function token(): Promise<string> {
  const r = await api('POST', '/api/v1/public/sessions', { headers: { 'X-API-Key': s.merchants[0]!.apiKey }, json: sessionBodyV1() });
  return (r.body as { token: string }).token;
}

// @checks ADR-029
describe('payment intents per session', () => {
  it(`holds at most x-max-payment-intents (${max}) even under concurrent creates; one more answers 422 TOO_MANY_PAYMENT_INTENTS; another session is not affected`, async () => {
    expect(max).toBeGreaterThan(0);
    const st = { 'X-Session-Token': await token() };
    const before = await s.handle.core.repo.count('paymentIntents');
    const answers = await Promise.all(
      Array.from({ length: max * 2 }, () =>
        api('POST', '/api/v1/public/sdk/payment-intents', { headers: st, json: { redirect_url: 'http://127.0.0.1:4010/shop/return' } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 201).length).toBe(max);
    expect(statuses.filter((x) => x === 422).length).toBe(max);
    const refused = answers.find((a) => a.status === 422)!;
    expect(refused.body).toEqual({
      error: {
        code: 'TOO_MANY_PAYMENT_INTENTS',
        message: `This checkout session already has ${max} payment intents; start a new checkout`,
      },
    });
    expect((await s.handle.core.repo.count('paymentIntents')) - before).toBe(max);
    const other = await api('POST', '/api/v1/public/sdk/payment-intents', {
      headers: { 'X-Session-Token': await token() },
      json: { redirect_url: 'http://127.0.0.1:4010/shop/return' },
    });
    expect(other.status).toBe(201);
  });
});
