import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, item, partnerBody, server, sessionBodyV1, sessionBodyV2, T0 } from './test-helpers.ts';
import type { TestServer } from './testing.ts';
import type { ManualClock } from './domain/clock.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

let s: TestServer;
let clock: ManualClock;
let api: Api;
let K1: string;
let K2: string;
beforeAll(async () => {
  ({ s, clock, api } = await server());
  K1 = s.merchants[0]!.apiKey;
  K2 = s.merchants[1]!.apiKey;
});
afterAll(() => s.close());

const k = (key: string) => ({ 'X-API-Key': key });
const svc = (key: string) => ({ 'X-Service-Key': key });
const txCount = () => s.handle.core.store.count('transactions');
let seq = 0;
const ref = () => `T-${Date.now().toString(36)}-${++seq}`;

async function createPartner(key = K1, over: Record<string, unknown> = {}) {
  const r = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ vendorReference: ref(), ...over }) });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('A1 create session', () => {
  it('Variant 1 answers { token, expiresAt } 3600 s ahead, with RateLimit headers', async () => {
    const r = await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['expiresAt', 'token']);
    expect(Date.parse(r.body.expiresAt) - clock.now()).toBe(3600_000);
    expect(r.headers.get('ratelimit-limit')).toBe('100');
    expect(r.headers.get('ratelimit-policy')).toBe('100;w=900');
    expect(Number(r.headers.get('ratelimit-remaining'))).toBeLessThan(100);
  });
  it('Variant 2 answers { session_token, expires_in: 3600, session_id } and takes total as a string', async () => {
    const r = await api('POST', '/api/v1/public/sessions', { headers: k(K2), json: sessionBodyV2() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.expires_in).toBe(3600);
    expect(Object.keys(r.body).sort()).toEqual(['expires_in', 'session_id', 'session_token']);
    const num = await api('POST', '/api/v1/public/sessions', { headers: k(K2), json: sessionBodyV1() });
    expect(num.status).toBe(400);
    expect(num.body.error.code).toBe('INVALID_AMOUNT');
    const str = await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV2() });
    expect(str.body.error.code).toBe('INVALID_AMOUNT');
  });
  it.each([
    ['total below 500', { total: 499.99, items: [{ id: 'a', name: 'b', price: 499.99, quantity: 1 }] }, 'INVALID_AMOUNT'],
    ['total above 15000', { total: 15000.01, items: [{ id: 'a', name: 'b', price: 15000.01, quantity: 1 }] }, 'INVALID_AMOUNT'],
    ['total with 3 decimals', { total: 1299.505 }, 'INVALID_AMOUNT'],
    ['total missing', { total: undefined }, 'INVALID_AMOUNT'],
    ['currency EUR', { currency: 'EUR' }, 'INVALID_CURRENCY'],
    ['currency missing', { currency: undefined }, 'INVALID_CURRENCY'],
    ['items empty', { items: [] }, 'INVALID_ITEMS'],
    ['items missing', { items: undefined }, 'INVALID_ITEMS'],
    ['item quantity 0', { items: [{ id: 'a', name: 'b', price: 1299.5, quantity: 0 }] }, 'INVALID_ITEMS'],
    ['item unknown field', { items: [{ id: 'a', name: 'b', price: 1299.5, quantity: 1, colour: 'red' }] }, 'INVALID_ITEMS'],
    ['unknown root field', { foo: 1 }, 'VALIDATION_ERROR'],
    ['total differs from Σ price × quantity', { total: 1300 }, 'AMOUNT_MISMATCH'],
  ])('%s → 400 %s', async (_n, over, code) => {
    const r = await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1(over) });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.code).toBe(code);
    expect(typeof r.body.error.message).toBe('string');
  });
  it('compares totals in integer centimes (500.10 × 3 = 1500.30 exactly, although the float product is not)', async () => {
    expect(500.1 * 3).not.toBe(1500.3);
    const r = await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: { total: 1500.3, currency: 'MAD', items: [{ id: 'a', name: 'b', price: 500.1, quantity: 3 }] } });
    expect(r.status, r.text).toBe(200);
  });
  it('missing or wrong key → 401 INVALID_API_KEY', async () => {
    for (const headers of [{}, k('sk_test_nope_nope_nope'), { 'X-Service-Key': K1 }] as Record<string, string>[]) {
      const r = await api('POST', '/api/v1/public/sessions', { headers, json: sessionBodyV1() });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: { code: 'INVALID_API_KEY', message: expect.any(String) } });
      expect(r.text).not.toContain(K1);
    }
  });
});

describe('A1 rate limit (per key, fixed window, sandbox clock)', () => {
  it('101st request in 900 s gets 429 with retry_after 60; the window resets with the clock', async () => {
    const { s: s2, clock: c2, api: a2 } = await server();
    try {
      const key = k(s2.merchants[0]!.apiKey);
      // 401s do not count
      for (let i = 0; i < 3; i++) expect((await a2('POST', '/api/v1/public/sessions', { headers: k('sk_test_wrongwrongwrong'), json: sessionBodyV1() })).status).toBe(401);
      let last;
      for (let i = 1; i <= 100; i++) {
        // invalid requests with a valid key count too
        last = await a2('POST', '/api/v1/public/sessions', { headers: key, json: i % 2 ? sessionBodyV1() : { bad: true } });
        expect(last.status).toBe(i % 2 ? 200 : 400);
        expect(last.headers.get('ratelimit-remaining')).toBe(String(100 - i));
      }
      const r = await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() });
      expect(r.status).toBe(429);
      expect(r.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retry_after: 60 });
      expect(r.headers.get('retry-after')).toBe('60');
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      expect(r.headers.get('ratelimit-reset')).toBe('900');
      // the other merchant is not affected
      expect((await a2('POST', '/api/v1/public/sessions', { headers: k(s2.merchants[1]!.apiKey), json: sessionBodyV2() })).status).toBe(200);
      c2.advance(899_000);
      expect((await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).status).toBe(429);
      c2.advance(1_000);
      const after = await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() });
      expect(after.status).toBe(200);
      expect(after.headers.get('ratelimit-remaining')).toBe('99');
    } finally {
      await s2.close();
    }
  });
});

describe('A2 / A3 verification and checkout', () => {
  it('token works only for its own session transaction and within its lifetime; dates DD/MM/YY', async () => {
    const a = (await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token;
    const b = (await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token;
    const pay = await api('POST', '/api/v1/sandbox/sessions/pay', { headers: k(K1), json: { session_token: a, outcome: 'success' } });
    expect(pay.status, pay.text).toBe(200);
    expect(pay.body).toMatchObject({ status: 'APPROVED', redirect_status: 'SUCCESS' });
    const ok = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, { headers: { 'x-session-token': a } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.status).toBe('APPROVED');
    expect(ok.body.created_at).toMatch(/^\d{2}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/);
    const now = new Date(clock.now());
    expect(ok.body.created_at.slice(0, 8)).toBe(`${String(now.getUTCDate()).padStart(2, '0')}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCFullYear() % 100)}`);
    const other = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, { headers: { 'X-Session-Token': b } });
    expect(other.status).toBe(401);
    expect(other.body.error.code).toBe('INVALID_SESSION_TOKEN');
    const missing = await api('GET', `/api/v1/public/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10/status`, { headers: { 'X-Session-Token': a } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('TRANSACTION_NOT_FOUND');
    const bogus = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, { headers: { 'X-Session-Token': 'st_test_bogus' } });
    expect(bogus.status).toBe(401);
    // A3 (Variant 1) sees it; the other merchant does not; Variant 2 has no A3
    const a3 = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}`, { headers: k(K1) });
    expect(a3.body).toEqual({ id: pay.body.transaction_id, status: 'APPROVED', amount: 1299.5, currency: 'MAD' });
    const v2 = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}`, { headers: k(K2) });
    expect(v2.status).toBe(404);
    expect(v2.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('token expires after 3600 s; an EXPIRED checkout transaction reads CANCELED, COMPLETED reads APPROVED', async () => {
    const { s: s2, clock: c2, api: a2 } = await server();
    try {
      const key = k(s2.merchants[0]!.apiKey);
      const tok = (await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).body.token;
      const failed = await a2('POST', '/api/v1/sandbox/sessions/pay', { headers: key, json: { session_token: tok, outcome: 'failed' } });
      expect(failed.body).toMatchObject({ status: 'PENDING', redirect_status: 'FAILED' });
      const again = await a2('POST', '/api/v1/sandbox/sessions/pay', { headers: key, json: { session_token: tok, outcome: 'failed' } });
      expect(again.body.transaction_id).toBe(failed.body.transaction_id);
      c2.advance(1800_000);
      const exp = await a2('GET', `/api/v1/public/transactions/${failed.body.transaction_id}/status`, { headers: { 'X-Session-Token': tok } });
      expect(exp.body.status).toBe('CANCELED');
      const a3 = await a2('GET', `/api/v1/public/transactions/${failed.body.transaction_id}`, { headers: key });
      expect(a3.body.status).toBe('CANCELED');
      c2.advance(1800_000);
      const gone = await a2('GET', `/api/v1/public/transactions/${failed.body.transaction_id}/status`, { headers: { 'X-Session-Token': tok } });
      expect(gone.status).toBe(401);

      const tok2 = (await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).body.token;
      const paid = await a2('POST', '/api/v1/sandbox/sessions/pay', { headers: key, json: { session_token: tok2, outcome: 'success' } });
      const done = await a2('POST', `/api/v1/sandbox/transactions/${paid.body.transaction_id}/complete`, { headers: key });
      expect(done.body.status).toBe('COMPLETED');
      const a2r = await a2('GET', `/api/v1/public/transactions/${paid.body.transaction_id}/status`, { headers: { 'X-Session-Token': tok2 } });
      expect(a2r.body.status).toBe('APPROVED');
      const payAgain = await a2('POST', '/api/v1/sandbox/sessions/pay', { headers: key, json: { session_token: tok2, outcome: 'success' } });
      expect(payAgain.status).toBe(400);
      expect(payAgain.body.error.code).toBe('TRANSACTION_NOT_PENDING');
      // another merchant's session
      const other = await a2('POST', '/api/v1/sandbox/sessions/pay', { headers: k(s2.merchants[1]!.apiKey), json: { session_token: tok2, outcome: 'success' } });
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe('SESSION_NOT_FOUND');
    } finally {
      await s2.close();
    }
  });

  it('SDK: session summary, payment intent on allowed origins only, simulate with redirect back', async () => {
    const tok = (await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token;
    const st = { 'X-Session-Token': tok };
    const sum = await api('GET', '/api/v1/public/sdk/session', { headers: st });
    expect(sum.status, sum.text).toBe(200);
    expect(sum.body).toMatchObject({ merchant_name: 'Atlas Electronics', total: 1299.5, test_mode: true });
    for (const bad of ['javascript:alert(1)', '//evil.example/x', 'https://evil.example/', 'http://127.0.0.1:4010.evil.example/', 'http://user@127.0.0.1:4010/', 'data:text/html,x', 'http://127.0.0.1:4011/']) {
      const r = await api('POST', '/api/v1/public/sdk/payment-intents', { headers: st, json: { redirect_url: bad } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REDIRECT_URL');
    }
    const pi = await api('POST', '/api/v1/public/sdk/payment-intents', { headers: st, json: { redirect_url: 'http://127.0.0.1:4010/shop/return?order=7', locale: 'fr' } });
    expect(pi.status, pi.text).toBe(201);
    expect(pi.body.checkout_url).toBe(`${s.baseUrl}/checkout/${pi.body.payment_intent_id}`);
    const sim = await api('POST', `/api/v1/public/sdk/payment-intents/${pi.body.payment_intent_id}/simulate`, { headers: st, json: { outcome: 'success' } });
    expect(sim.status, sim.text).toBe(200);
    const back = new URL(sim.body.redirect_url);
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:4010/shop/return');
    expect(back.searchParams.get('order')).toBe('7');
    expect(back.searchParams.get('status')).toBe('SUCCESS');
    expect(back.searchParams.get('transaction_id')).toBe(sim.body.transaction_id);
    const popup = await api('POST', '/api/v1/public/sdk/payment-intents', { headers: st, json: { flow: 'popup', origin: 'http://localhost:4010' } });
    expect(popup.status, popup.text).toBe(201);
  });

  it('SDK cancel: the intent’s own return address with CANCELLED; nothing changes; refused once paid or for another session', async () => {
    const open = async () => {
      const tok = (await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token as string;
      const st = { 'X-Session-Token': tok };
      const pi = await api('POST', '/api/v1/public/sdk/payment-intents', { headers: st, json: { redirect_url: 'http://127.0.0.1:4010/shop/return?order=9&transaction_id=forged' } });
      expect(pi.status, pi.text).toBe(201);
      return { st, id: pi.body.payment_intent_id as string };
    };
    const cancel = (id: string, st: Record<string, string>) => api('POST', `/api/v1/public/sdk/payment-intents/${id}/cancel`, { headers: st });

    // Before any payment: no transaction, and the forged transaction_id is removed.
    const a = await open();
    const before = txCount();
    const c1 = await cancel(a.id, a.st);
    expect(c1.status, c1.text).toBe(200);
    expect(c1.body).toEqual({ payment_intent_id: a.id, redirect_status: 'CANCELLED', redirect_url: 'http://127.0.0.1:4010/shop/return?order=9&status=CANCELLED' });
    expect(txCount()).toBe(before);

    // After a failed payment: the PENDING checkout transaction is named and stays PENDING.
    const failed = await api('POST', `/api/v1/public/sdk/payment-intents/${a.id}/simulate`, { headers: a.st, json: { outcome: 'failed' } });
    expect(failed.body.status).toBe('PENDING');
    const c2 = await cancel(a.id, a.st);
    expect(c2.body.transaction_id).toBe(failed.body.transaction_id);
    const back = new URL(c2.body.redirect_url);
    expect(Object.fromEntries(back.searchParams)).toEqual({ order: '9', status: 'CANCELLED', transaction_id: failed.body.transaction_id });
    const stillPending = await api('GET', `/api/v1/public/transactions/${failed.body.transaction_id}/status`, { headers: a.st });
    expect(stillPending.body.status).toBe('PENDING');

    // Another session's token, an unknown intent, no token.
    const b = await open();
    expect((await cancel(a.id, b.st)).body.error.code).toBe('SESSION_NOT_FOUND');
    expect((await cancel('3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10', a.st)).status).toBe(404);
    expect((await cancel(a.id, {})).body.error.code).toBe('INVALID_SESSION_TOKEN');

    // Once paid, the session cannot be left as cancelled.
    expect((await api('POST', `/api/v1/public/sdk/payment-intents/${a.id}/simulate`, { headers: a.st, json: { outcome: 'success' } })).body.status).toBe('APPROVED');
    const c3 = await cancel(a.id, a.st);
    expect(c3.status).toBe(400);
    expect(c3.body.error).toMatchObject({ code: 'TRANSACTION_NOT_PENDING', message: expect.stringContaining('APPROVED') });
  });
});

describe('B1–B4 partner transactions', () => {
  it('B1 201 PENDING with updatedAt null, SMS in the outbox; B2 and B3 read it', async () => {
    const vr = ref();
    const r = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody({ vendorReference: vr, items: [{ ...item(1299.5), categoryId: 42 }] }) });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ status: 'PENDING', updatedAt: null, vendorReference: vr, totalAmount: 1299.5, merchantName: 'Atlas Electronics', storeName: 'Atlas Casablanca' });
    expect(r.body.orderReference).toMatch(/^ORD-[0-9A-Z]{10}$/);
    expect(r.body.items[0]).toMatchObject({ reference: 'SKU-100', categoryId: 42, unitPrice: 1299.5 });
    const sms = await api('GET', '/api/v1/sandbox/sms', { headers: k(K1) });
    expect(sms.body.data.find((m: { transactionId: string }) => m.transactionId === r.body.id)).toMatchObject({ to: '212612345678' });
    const b2 = await api('GET', `/api/v1/public/partner/transactions/${r.body.id}`, { headers: { 'X-Api-Key': K1 } });
    expect(b2.body).toEqual(r.body);
    const b3 = await api('GET', `/api/v1/public/partner/transactions/vendor/${vr}`, { headers: { 'x-api-key': K1 } });
    expect(b3.body).toEqual(r.body);
    const noRef = await createPartner(K1, { vendorReference: undefined });
    expect(noRef.vendorReference).toBeNull();
    expect(noRef.items[0].categoryId).toBeNull();
  });

  it('B1 409 for a vendorReference the merchant already used; another merchant may use it', async () => {
    const vr = ref();
    await createPartner(K1, { vendorReference: vr });
    const before = txCount();
    const dup = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody({ vendorReference: vr }) });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('DUPLICATE_VENDOR_REFERENCE');
    expect(txCount()).toBe(before);
    const other = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K2), json: partnerBody({ vendorReference: vr }) });
    expect(other.status).toBe(201);
  });

  it.each([
    ['missing customerPhone', { customerPhone: undefined }, 400, 'VALIDATION_ERROR'],
    ['phone with +', { customerPhone: '+212612345678' }, 400, 'VALIDATION_ERROR'],
    ['currency EUR', { currency: 'EUR' }, 400, 'VALIDATION_ERROR'],
    ['no items', { items: [] }, 400, 'VALIDATION_ERROR'],
    ['name over 200', { items: [{ ...item(1299.5), name: 'x'.repeat(201) }] }, 400, 'VALIDATION_ERROR'],
    ['unitPrice 0', { total: 0.01, items: [item(0)] }, 400, 'VALIDATION_ERROR'],
    ['quantity 1.5', { items: [item(1299.5, 1.5)] }, 400, 'VALIDATION_ERROR'],
    ['server-owned id', { id: '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10' }, 400, 'VALIDATION_ERROR'],
    ['server-owned status', { status: 'APPROVED' }, 400, 'VALIDATION_ERROR'],
    ['server-owned createdAt', { createdAt: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_ERROR'],
    ['vendorReference with /', { vendorReference: 'a/b' }, 400, 'VALIDATION_ERROR'],
    ['total ≠ Σ unitPrice × quantity', { total: 1300 }, 400, 'AMOUNT_MISMATCH'],
    ['total 499.99', { total: 499.99, items: [item(499.99)] }, 422, 'AMOUNT_OUT_OF_RANGE'],
    ['total 15000.01', { total: 15000.01, items: [item(15000.01)] }, 422, 'AMOUNT_OUT_OF_RANGE'],
  ])('B1 %s → %d %s and nothing stored', async (_n, over, status, code) => {
    const before = txCount();
    const r = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody(over) });
    expect(r.status, r.text).toBe(status);
    expect(r.body.error.code).toBe(code);
    if (code === 'VALIDATION_ERROR') expect(r.body.error.details.length).toBeGreaterThan(0);
    expect(txCount()).toBe(before);
  });

  it('B1 accepts the range edges 500 and 15000', async () => {
    await createPartner(K1, { total: 500, items: [item(500)] });
    await createPartner(K1, { total: 15000, items: [item(7500, 2)] });
  });

  it('B1 with X-API-Key instead of X-Service-Key → 401', async () => {
    const r = await api('POST', '/api/v1/public/partner/transactions', { headers: k(K1), json: partnerBody() });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('INVALID_API_KEY');
  });

  it('B2/B3/B4: another merchant’s transaction gets the identical 404 body as a missing one', async () => {
    const t = await createPartner(K1);
    const missingId = await api('GET', '/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10', { headers: { 'X-Api-Key': K2 } });
    const foreignId = await api('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': K2 } });
    expect(foreignId.status).toBe(404);
    expect(foreignId.text).toBe(missingId.text);
    const foreignRef = await api('GET', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}`, { headers: { 'X-Api-Key': K2 } });
    const missingRef = await api('GET', `/api/v1/public/partner/transactions/vendor/NOPE-${ref()}`, { headers: { 'X-Api-Key': K2 } });
    expect(foreignRef.text).toBe(missingRef.text);
    const foreignCancel = await api('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, { headers: { 'X-Api-Key': K2 } });
    expect(foreignCancel.status).toBe(404);
    expect(foreignCancel.text).toBe(missingId.text);
    expect((await api('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': K1 } })).body.status).toBe('PENDING');
    // a checkout transaction is not a partner transaction (ADR-019)
    const tok = (await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token;
    const paid = await api('POST', '/api/v1/sandbox/sessions/pay', { headers: k(K1), json: { session_token: tok, outcome: 'failed' } });
    expect((await api('GET', `/api/v1/public/partner/transactions/${paid.body.transaction_id}`, { headers: { 'X-Api-Key': K1 } })).status).toBe(404);
  });

  it('B4 cancels only from PENDING; updatedAt set; transaction.cancelled recorded; 400 names the status', async () => {
    const t = await createPartner(K1);
    const c = await api('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, { headers: { 'X-Api-Key': K1 } });
    expect(c.status, c.text).toBe(200);
    expect(c.body.status).toBe('CANCELED');
    expect(c.body.updatedAt).toBe(new Date(clock.now()).toISOString());
    const again = await api('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, { headers: { 'X-Api-Key': K1 } });
    expect(again.status).toBe(400);
    expect(again.body.error).toEqual({ code: 'TRANSACTION_NOT_PENDING', message: 'Transaction is not in PENDING status (current status: CANCELED)' });
    const a = await createPartner(K1);
    expect((await api('POST', `/api/v1/sandbox/transactions/${a.id}/confirm`, { headers: k(K1) })).body.status).toBe('APPROVED');
    const fromApproved = await api('PUT', `/api/v1/public/partner/transactions/vendor/${a.vendorReference}/cancel`, { headers: { 'X-Api-Key': K1 } });
    expect(fromApproved.body.error.message).toBe('Transaction is not in PENDING status (current status: APPROVED)');
    const deliveries = (await api('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(K1) })).body.data;
    const cancelled = deliveries.filter((d: { transactionId: string }) => d.transactionId === t.id);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ event: 'transaction.cancelled', state: 'no_endpoint', payload: { event: 'transaction.cancelled', data: { id: t.id, status: 'CANCELED', vendorReference: t.vendorReference } } });
    const approved = deliveries.find((d: { transactionId: string; event: string }) => d.transactionId === a.id && d.event === 'transaction.approved');
    expect(approved.payload.data.approvedAt).toBeDefined();
  });

  it('sandbox complete only from APPROVED; confirm only from PENDING', async () => {
    const t = await createPartner(K1);
    const early = await api('POST', `/api/v1/sandbox/transactions/${t.id}/complete`, { headers: k(K1) });
    expect(early.body.error).toEqual({ code: 'TRANSACTION_NOT_APPROVED', message: 'Transaction is not in APPROVED status (current status: PENDING)' });
    await api('POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, { headers: k(K1) });
    const twice = await api('POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, { headers: k(K1) });
    expect(twice.body.error.code).toBe('TRANSACTION_NOT_PENDING');
    const done = await api('POST', `/api/v1/sandbox/transactions/${t.id}/complete`, { headers: k(K1) });
    expect(done.body.status).toBe('COMPLETED');
    const cancel = await api('POST', `/api/v1/sandbox/transactions/${t.id}/cancel`, { headers: k(K1) });
    expect(cancel.body.error.message).toBe('Transaction is not in PENDING status (current status: COMPLETED)');
  });
});

describe('payment window expiry', () => {
  it('PENDING until createdAt + window − 1 ms, EXPIRED exactly at the edge, on every read, with one transaction.expired', async () => {
    const { s: s2, clock: c2, api: a2 } = await server({ paymentWindow: '30m', sweepIntervalMs: 3_600_000 });
    try {
      const key = s2.merchants[0]!.apiKey;
      const t = (await a2('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ vendorReference: 'EDGE-1' }) })).body;
      c2.advance(1800_000 - 1);
      expect((await a2('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': key } })).body.status).toBe('PENDING');
      c2.advance(1);
      const b3 = await a2('GET', '/api/v1/public/partner/transactions/vendor/EDGE-1', { headers: { 'X-Api-Key': key } });
      expect(b3.body.status).toBe('EXPIRED');
      expect(b3.body.updatedAt).toBe(new Date(Date.parse(t.createdAt) + 1800_000).toISOString());
      const b2 = await a2('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': key } });
      expect(b2.body.status).toBe('EXPIRED');
      const confirm = await a2('POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, { headers: k(key) });
      expect(confirm.body.error.message).toBe('Transaction is not in PENDING status (current status: EXPIRED)');
      const ev = (await a2('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(key) })).body.data.filter((d: { event: string }) => d.event === 'transaction.expired');
      expect(ev).toHaveLength(1);
      expect(ev[0].payload.data).toMatchObject({ id: t.id, status: 'EXPIRED', expiredAt: b3.body.updatedAt });
    } finally {
      await s2.close();
    }
  });

  it('advancing the sandbox clock expires due transactions before the answer (sweep), per merchant', async () => {
    const { s: s2, api: a2 } = await server({ paymentWindow: '10m', sweepIntervalMs: 3_600_000 });
    try {
      const [m1, m2] = s2.merchants;
      const t1 = (await a2('POST', '/api/v1/public/partner/transactions', { headers: svc(m1!.apiKey), json: partnerBody() })).body;
      const t2 = (await a2('POST', '/api/v1/public/partner/transactions', { headers: svc(m2!.apiKey), json: partnerBody() })).body;
      const adv = await a2('POST', '/api/v1/sandbox/clock/advance', { headers: k(m1!.apiKey), json: { seconds: 600 } });
      expect(adv.body.offsetSeconds).toBe(600);
      const store = s2.handle.core.store;
      expect(store.get('transactions', t1.id)!.status).toBe('EXPIRED');
      expect(store.get('transactions', t2.id)!.status).toBe('PENDING');
      const clockOf2 = await a2('GET', '/api/v1/sandbox/clock', { headers: k(m2!.apiKey) });
      expect(clockOf2.body.offsetSeconds).toBe(0);
      const bad = await a2('POST', '/api/v1/sandbox/clock/advance', { headers: k(m1!.apiKey), json: { seconds: -5 } });
      expect(bad.status).toBe(400);
    } finally {
      await s2.close();
    }
  });
});

describe('bad input and faults: documented 4xx, never 500, nothing stored changes', () => {
  const P = '/api/v1/public/partner/transactions';
  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{"total": 12', 400, 'VALIDATION_ERROR'],
    ['text/plain', { 'content-type': 'text/plain' }, JSON.stringify(partnerBody()), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['no content type', {}, JSON.stringify(partnerBody()), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['empty body', { 'content-type': 'application/json' }, '', 400, 'VALIDATION_ERROR'],
    ['over 100 kB', { 'content-type': 'application/json' }, JSON.stringify(partnerBody({ pad: 'x'.repeat(110_000) })), 413, 'PAYLOAD_TOO_LARGE'],
    ['deeply nested', { 'content-type': 'application/json' }, `${'['.repeat(5000)}${']'.repeat(5000)}`, 400, 'VALIDATION_ERROR'],
    ['__proto__ key', { 'content-type': 'application/json' }, JSON.stringify(partnerBody()).replace('{', '{"__proto__":{"admin":true},'), 400, 'VALIDATION_ERROR'],
    ['constructor key', { 'content-type': 'application/json' }, JSON.stringify(partnerBody()).replace('{', '{"constructor":{"prototype":{}},'), 400, 'VALIDATION_ERROR'],
    ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'VALIDATION_ERROR'],
    ['a JSON string', { 'content-type': 'application/json' }, '"x"', 400, 'VALIDATION_ERROR'],
    ['invalid UTF-8', { 'content-type': 'application/json' }, Buffer.from([0x7b, 0xff, 0x7d]), 400, 'VALIDATION_ERROR'],
  ])('%s → %d %s', async (_n, headers, raw, status, code) => {
    const before = txCount();
    const r = await api('POST', P, { headers: { ...svc(K1), ...headers }, raw: raw as string });
    expect(r.status, r.text).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(txCount()).toBe(before);
    expect((await api('GET', '/api/v1/sandbox/clock', { headers: k(K1) })).status).toBe(200); // still serving
  });

  it('a duplicated key header (any case) → 401', async () => {
    for (const headers of [
      [
        ['X-Api-Key', K1],
        ['x-api-key', K1],
      ],
      [
        ['X-Service-Key', K1],
        ['X-Service-Key', K1],
      ],
    ] as [string, string][][]) {
      const path = headers[0]![0] === 'X-Service-Key' ? P : '/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10';
      const r = await call(s.baseUrl, path === P ? 'POST' : 'GET', path, { headers, json: path === P ? partnerBody() : undefined });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('INVALID_API_KEY');
    }
    const dupToken = await call(s.baseUrl, 'GET', '/api/v1/public/sdk/session', { headers: [['X-Session-Token', 'a'], ['X-Session-Token', 'b']] });
    expect(dupToken.body.error.code).toBe('INVALID_SESSION_TOKEN');
  });

  it('unknown route, unknown method, unknown query parameter, bad path parameter, bad percent-escape', async () => {
    const a = await api('GET', '/api/v1/nowhere', { headers: k(K1) });
    expect(a.status).toBe(404);
    expect(a.body.error.code).toBe('ROUTE_NOT_FOUND');
    const b = await api('DELETE', '/api/v1/public/sessions', { headers: k(K1) });
    expect(b.body.error.code).toBe('ROUTE_NOT_FOUND');
    const c = await api('GET', '/api/v1/public/partner/transactions/not-a-uuid', { headers: { 'X-Api-Key': K1 } });
    expect(c.status).toBe(400);
    expect(c.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'path.transactionId' }] });
    const d = await api('GET', '/api/v1/sandbox/clock?debug=1', { headers: k(K1) });
    expect(d.status).toBe(400);
    expect(d.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.debug' }] }); // ADR-022
    const e = await api('GET', '/api/v1/public/partner/transactions/%E0%A4%A', { headers: k(K1) });
    expect(e.status).toBe(400);
    expect(e.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'path.transactionId', message: 'is not valid percent-encoding' }] });
  });
});

describe('concurrency', () => {
  it('50 simultaneous cancels of one transaction → exactly one 200', async () => {
    const t = await createPartner(K1);
    const rs = await Promise.all(Array.from({ length: 50 }, () => api('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, { headers: { 'X-Api-Key': K1 } })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 400 && r.body.error.code === 'TRANSACTION_NOT_PENDING')).toHaveLength(49);
    const events = (await api('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(K1) })).body.data.filter((d: { transactionId: string }) => d.transactionId === t.id);
    expect(events).toHaveLength(1);
  });
  it('50 simultaneous creates with one vendorReference → one 201 and 49 × 409', async () => {
    const vr = ref();
    const rs = await Promise.all(Array.from({ length: 50 }, () => api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody({ vendorReference: vr }) })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(49);
  });
});

describe('modes and keys (ADR-020)', () => {
  const live = { name: 'Live Shop', storeName: 'Live Store', apiKey: 'sk_live_shop_0123456789abcdef', variant: 1 as const };
  const test = { name: 'Test Shop', storeName: 'Test Store', apiKey: 'sk_test_shop_0123456789abcdef', variant: 2 as const };
  it('production refuses test keys and does not serve sandbox routes; sends SMS through the sender', async () => {
    const sent: string[] = [];
    const { s: p, api: a } = await server({ mode: 'production', merchants: [live, test], smsSender: { send: async (m) => void sent.push(`${m.to}: ${m.body}`) } });
    try {
      const t = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(test.apiKey), json: partnerBody() });
      expect(t.status).toBe(401);
      const l = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(live.apiKey), json: partnerBody() });
      expect(l.status, l.text).toBe(201);
      const sb = await a('GET', '/api/v1/sandbox/sms', { headers: k(live.apiKey) });
      expect(sb.status).toBe(404);
      expect(sb.body.error.code).toBe('ROUTE_NOT_FOUND');
      const tok = (await a('POST', '/api/v1/public/sessions', { headers: k(live.apiKey), json: sessionBodyV1() })).body.token as string;
      expect(tok.startsWith('st_live_')).toBe(true);
    } finally {
      await p.close();
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^212612345678: Live Shop: confirm your payment of 1299.50 MAD \(ORD-[0-9A-Z]{10}\) within 30 minutes\.$/);
  });
  it('sandbox refuses live keys', async () => {
    const { s: p, api: a } = await server({ merchants: [live, test] });
    try {
      expect((await a('POST', '/api/v1/public/partner/transactions', { headers: svc(live.apiKey), json: partnerBody() })).status).toBe(401);
      expect((await a('POST', '/api/v1/public/partner/transactions', { headers: svc(test.apiKey), json: partnerBody() })).status).toBe(201);
    } finally {
      await p.close();
    }
  });
  it('422 MERCHANT_INACTIVE and CREDIT_LIMIT_EXCEEDED from merchant config', async () => {
    const { s: p, api: a } = await server({
      merchants: [
        { ...test, active: false },
        { name: 'Limited', storeName: 'L', apiKey: 'sk_test_limited_0123456789', variant: 1, creditLimit: 2000 },
      ],
    });
    try {
      const inactive = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(test.apiKey), json: partnerBody() });
      expect(inactive.status).toBe(422);
      expect(inactive.body.error.code).toBe('MERCHANT_INACTIVE');
      const key = 'sk_test_limited_0123456789';
      expect((await a('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ total: 1000, items: [item(1000)] }) })).status).toBe(201);
      const second = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ total: 1000, items: [item(1000)] }) });
      expect(second.status).toBe(201);
      const third = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ total: 500, items: [item(500)] }) });
      expect(third.status).toBe(422);
      expect(third.body.error.code).toBe('CREDIT_LIMIT_EXCEEDED');
      // cancelling frees the limit
      await a('POST', `/api/v1/sandbox/transactions/${second.body.id}/cancel`, { headers: k(key) });
      expect((await a('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ total: 500, items: [item(500)] }) })).status).toBe(201);
    } finally {
      await p.close();
    }
  });
});

describe('webhook deliveries (sandbox)', () => {
  it('redeliver: unknown or foreign id → 404 DELIVERY_NOT_FOUND; own → 200 with the same id and body', async () => {
    const t = await createPartner(K1);
    await api('POST', `/api/v1/sandbox/transactions/${t.id}/cancel`, { headers: k(K1) });
    const d = (await api('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(K1) })).body.data[0];
    const foreign = await api('POST', `/api/v1/sandbox/webhook-deliveries/${d.id}/redeliver`, { headers: k(K2) });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('DELIVERY_NOT_FOUND');
    const own = await api('POST', `/api/v1/sandbox/webhook-deliveries/${d.id}/redeliver`, { headers: k(K1) });
    expect(own.status, own.text).toBe(200);
    expect(own.body.id).toBe(d.id);
    expect(own.body.payload).toEqual(d.payload);
  });
  it('the sandbox clock starts at the base clock', () => {
    expect(clock.now()).toBeGreaterThanOrEqual(T0);
  });
});
