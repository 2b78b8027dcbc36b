/** The typed clients against the real reference server (127.0.0.1, port 0). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { variants } from '../../generated/contract.ts';
import { createPayLaterClientV1, createPayLaterClientV2, PayLaterApiError } from './index.ts';

const V1_KEY = 'sk_test_v1_client_11111111';
const V2_KEY = 'sk_test_v2_client_22222222';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    merchants: [
      { name: 'Atlas Electronics', storeName: 'Atlas Casablanca', apiKey: V1_KEY, variant: 1, allowedOrigins: ['https://shop.example'] },
      { name: 'Souk Digital', storeName: 'Souk Digital Rabat', apiKey: V2_KEY, variant: 2, allowedOrigins: ['https://shop.example'] },
    ],
    webhookDispatcherFactory: null,
  });
});
afterAll(async () => {
  await server?.close();
});

const items = [
  { id: 'hdp-200', name: 'Wireless headphones', price: 649.5, quantity: 1 },
  { id: 'case-s', name: 'Phone case', price: 129.99, quantity: 1 },
];

async function rejection(p: Promise<unknown>): Promise<PayLaterApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PayLaterApiError);
  return e as PayLaterApiError;
}

describe('Variant 2 client', () => {
  it('A1 → SDK payment intent → cancel → sandbox pay → A2 APPROVED → cancel refused', async () => {
    const c = createPayLaterClientV2({ baseUrl: server.baseUrl, apiKey: V2_KEY });
    const session = await c.createSession({ total: '779.49', currency: 'MAD', items });
    expect(session.expires_in).toBe(3600);
    const summary = await c.sdk.getSession(session.session_token);
    expect({ total: summary.total, test_mode: summary.test_mode, merchant: summary.merchant_name }).toEqual({
      total: 779.49,
      test_mode: true,
      merchant: 'Souk Digital',
    });
    const intent = await c.sdk.createPaymentIntent(
      { redirect_url: 'https://shop.example/return?order=7', flow: 'redirect', locale: 'fr' },
      session.session_token,
    );
    expect(intent.checkout_url).toBe(`${server.baseUrl}/checkout/${intent.payment_intent_id}`);
    const left = await c.sdk.cancelPaymentIntent(intent.payment_intent_id, session.session_token);
    expect(left).toEqual({
      payment_intent_id: intent.payment_intent_id,
      redirect_status: 'CANCELLED',
      redirect_url: 'https://shop.example/return?order=7&status=CANCELLED',
    });
    const paid = await c.sdk.simulatePayment(intent.payment_intent_id, { outcome: 'success' }, session.session_token);
    expect(paid.status).toBe('APPROVED');
    expect(paid.redirect_url).toBe(`https://shop.example/return?order=7&status=SUCCESS&transaction_id=${paid.transaction_id}`);
    const a2 = await c.getTransactionStatus(paid.transaction_id, session.session_token);
    expect({ status: a2.status, amount: a2.amount, merchant: a2.merchant_name }).toEqual({
      status: 'APPROVED',
      amount: 779.49,
      merchant: 'Souk Digital',
    });
    expect(await rejection(c.sdk.cancelPaymentIntent(intent.payment_intent_id, session.session_token))).toMatchObject({
      status: 400,
      code: 'TRANSACTION_NOT_PENDING',
    });
  });

  it('typed errors: INVALID_API_KEY, INVALID_AMOUNT with details, INVALID_SESSION_TOKEN, INVALID_REDIRECT_URL', async () => {
    const bad = createPayLaterClientV2({ baseUrl: server.baseUrl, apiKey: 'sk_test_v2_client_wrongkey' });
    expect(await rejection(bad.createSession({ total: '779.49', currency: 'MAD', items }))).toMatchObject({
      status: 401,
      code: 'INVALID_API_KEY',
    });
    const c = createPayLaterClientV2({ baseUrl: server.baseUrl, apiKey: V2_KEY });
    const amount = await rejection(c.createSession({ total: '99.00', currency: 'MAD', items }));
    expect(amount).toMatchObject({ status: 400, code: 'INVALID_AMOUNT' });
    expect(amount.details?.some((d) => d.path === '/total')).toBe(true);
    expect(await rejection(c.getTransactionStatus('3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10', 'st_test_not_a_token'))).toMatchObject({
      status: 401,
      code: 'INVALID_SESSION_TOKEN',
    });
    const session = await c.createSession({ total: '779.49', currency: 'MAD', items });
    for (const redirect_url of [
      'javascript:alert(1)',
      '//evil.example',
      'https://shop.example.evil.example/',
      'https://shop.example@evil.example/',
    ]) {
      expect(
        await rejection(c.sdk.createPaymentIntent({ redirect_url, flow: 'redirect', locale: 'en' }, session.session_token)),
      ).toMatchObject({
        status: 400,
        code: 'INVALID_REDIRECT_URL',
      });
    }
  });

  it('partner transactions: B1 with X-Service-Key, B3, B4, then B4 again → 400 TRANSACTION_NOT_PENDING', async () => {
    const c = createPayLaterClientV2({ baseUrl: server.baseUrl, apiKey: V2_KEY });
    const created = await c.createPartnerTransaction({
      customerPhone: '212612345678',
      total: 1299.5,
      currency: 'MAD',
      items: [{ name: 'Phone', quantity: 1, unitPrice: 1299.5 }],
      vendorReference: 'client-test-1',
    });
    expect(created.status).toBe('PENDING');
    expect((await c.getPartnerTransactionByVendorReference('client-test-1')).id).toBe(created.id);
    expect((await c.cancelPartnerTransactionByVendorReference('client-test-1')).status).toBe('CANCELED');
    expect(await rejection(c.cancelPartnerTransactionByVendorReference('client-test-1'))).toMatchObject({
      status: 400,
      code: 'TRANSACTION_NOT_PENDING',
    });
    expect(await rejection(c.getPartnerTransaction('3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10'))).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
  });
});

describe('Variant 1 client', () => {
  it('A1 → sandbox pay → A3 with the API key', async () => {
    const c = createPayLaterClientV1({ baseUrl: server.baseUrl, apiKey: V1_KEY });
    const session = await c.createSession({ total: 779.49, currency: 'MAD', items });
    const paid = await c.sandbox.paySession({ session_token: session.token, outcome: 'failed' });
    expect(paid.status).toBe('PENDING');
    expect(await c.verifyTransaction(paid.transaction_id)).toEqual({
      id: paid.transaction_id,
      status: 'PENDING',
      amount: 779.49,
      currency: 'MAD',
    });
  });

  it('429 RATE_LIMIT_EXCEEDED carries retryAfter, the seconds left in the window, after the limit of A1 requests', async () => {
    const c = createPayLaterClientV1({ baseUrl: server.baseUrl, apiKey: V1_KEY });
    const { limit, windowSeconds } = variants.v1.rateLimits.createSession;
    // One A1 request was made above; limit - 1 more reach the limit of the window.
    await Promise.all(Array.from({ length: limit - 1 }, () => c.createSession({ total: 779.49, currency: 'MAD', items })));
    const e = await rejection(c.createSession({ total: 779.49, currency: 'MAD', items }));
    expect({ status: e.status, code: e.code }).toEqual({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
    // The window opened at the first request, moments ago (real clock): almost all of it is left (ADR-006).
    expect(e.retryAfter).toBeGreaterThan(windowSeconds - 60);
    expect(e.retryAfter).toBeLessThanOrEqual(windowSeconds);
  });
});

describe('paginated sandbox lists against the server (ADR-028)', () => {
  it('listSms takes limit and cursor, and smsPages walks every page once, in the unpaginated order', async () => {
    const c = createPayLaterClientV1({ baseUrl: server.baseUrl, apiKey: V1_KEY });
    for (let i = 0; i < 5; i++)
      await c.createPartnerTransaction({
        customerPhone: '212612345678',
        total: 600,
        currency: 'MAD',
        items: [{ name: 'Phone case', quantity: 1, unitPrice: 600 }],
      });
    const whole = await c.sandbox.listSms({ limit: 100 });
    expect(whole.data.length).toBeGreaterThanOrEqual(5);
    const first = await c.sandbox.listSms({ limit: 2 });
    expect(first.data).toEqual(whole.data.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await c.sandbox.listSms({ limit: 2, cursor: first.nextCursor! });
    expect(second.data).toEqual(whole.data.slice(2, 4));
    const sizes: number[] = [];
    const walked: string[] = [];
    for await (const page of c.sandbox.smsPages({ limit: 2 })) {
      sizes.push(page.data.length);
      walked.push(...page.data.map((m) => m.id));
    }
    expect(walked).toEqual(whole.data.map((m) => m.id));
    expect(sizes.every((n) => n <= 2)).toBe(true);
    const tooMany = await rejection(c.sandbox.listSms({ limit: 100_000 }));
    expect([tooMany.status, tooMany.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('listWebhookDeliveries takes limit, and webhookDeliveryPages ends on the last page', async () => {
    const c = createPayLaterClientV2({ baseUrl: server.baseUrl, apiKey: V2_KEY });
    const one = await c.sandbox.listWebhookDeliveries({ limit: 1 });
    expect(one.data.length).toBeLessThanOrEqual(1);
    let pagesSeen = 0;
    let last: string | null = 'unset';
    for await (const page of c.sandbox.webhookDeliveryPages({ limit: 1 })) {
      pagesSeen += 1;
      last = page.nextCursor;
    }
    expect(pagesSeen).toBeGreaterThanOrEqual(1);
    expect(last).toBeNull();
  });
});
