/** The API over HTTP, A family: A1 sessions (and its rate limit), A2 / A3 verification, the checkout payment. */
import { describe, expect, it } from 'vitest';
import { variants } from '../generated/contract.ts';
import { errorOf, server, sessionBodyV1, sessionBodyV2, sharedServer, type S1, type S2 } from './test-support/helpers.ts';

const t = sharedServer();
const { clock, api, K1, K2, k, txCount } = t;

// @checks ADR-070: each key is answered in its merchant's variant (V1's key V1's shape, V2's key V2's)
describe('A1 create session', () => {
  it('Variant 1 answers { token, expiresAt } 3600 s ahead, with RateLimit headers', async () => {
    const r = await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['expiresAt', 'token']);
    expect(Date.parse(r.body.expiresAt) - clock.now()).toBe(3600_000);
    expect(r.headers.get('ratelimit-limit')).toBe('100');
    expect(r.headers.get('ratelimit-policy')).toBe('100;w=900');
    expect(Number(r.headers.get('ratelimit-remaining'))).toBeLessThan(100);
  });
  it('Variant 2 answers { session_token, expires_in: 3600, session_id } and takes total as a string', async () => {
    const r = await api<S2['SessionResponseV2']>('POST', '/api/v1/public/sessions', { headers: k(K2), json: sessionBodyV2() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.expires_in).toBe(3600);
    expect(Object.keys(r.body).sort()).toEqual(['expires_in', 'session_id', 'session_token']);
    const num = await api('POST', '/api/v1/public/sessions', { headers: k(K2), json: sessionBodyV1() });
    expect(num.status).toBe(400);
    expect(errorOf(num).code).toBe('INVALID_AMOUNT');
    const str = await api('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV2() });
    expect(errorOf(str).code).toBe('INVALID_AMOUNT');
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
    expect(errorOf(r).code).toBe(code);
    expect(typeof errorOf(r).message).toBe('string');
  });
  it('compares totals in integer centimes (500.10 × 3 = 1500.30 exactly, although the float product is not)', async () => {
    expect(500.1 * 3).not.toBe(1500.3);
    const r = await api('POST', '/api/v1/public/sessions', {
      headers: k(K1),
      json: { total: 1500.3, currency: 'MAD', items: [{ id: 'a', name: 'b', price: 500.1, quantity: 3 }] },
    });
    expect(r.status, r.text).toBe(200);
  });
  it('missing or wrong key → 401 INVALID_API_KEY', async () => {
    for (const headers of [{}, k('sk_test_nope_nope_nope'), { 'X-Service-Key': K1 }] as Record<string, string>[]) {
      const r = await api('POST', '/api/v1/public/sessions', { headers, json: sessionBodyV1() });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: { code: 'INVALID_API_KEY', message: errorOf(r).message } }); // errorOf: message is a string
      expect(r.text).not.toContain(K1);
    }
  });
  it('a missing key is named by the header the contract gives the operation (authHeader)', async () => {
    const v1 = await api('POST', '/api/v1/public/sessions', { json: sessionBodyV1() });
    expect(errorOf(v1).message).toBe(`Missing API key: send it in the ${variants.v1.operations.createSession.authHeader} header`);
    const b1 = await api('POST', '/api/v1/public/partner/transactions', { json: {} });
    expect(errorOf(b1).message).toBe(
      `Missing API key: send it in the ${variants.v1.operations.createPartnerTransaction.authHeader} header`,
    );
  });
});

describe('A1 rate limit (per key, fixed window, sandbox clock)', () => {
  it('101st request in 900 s gets 429 whose retry_after, Retry-After and RateLimit-Reset are the rest of the window; the window resets with the clock', async () => {
    const { s: s2, clock: c2, api: a2 } = await server();
    try {
      const key = k(s2.merchants[0]!.apiKey);
      // 401s do not count
      for (let i = 0; i < 3; i++)
        expect((await a2('POST', '/api/v1/public/sessions', { headers: k('sk_test_wrongwrongwrong'), json: sessionBodyV1() })).status).toBe(
          401,
        );
      let last;
      for (let i = 1; i <= 100; i++) {
        // invalid requests with a valid key count too
        last = await a2('POST', '/api/v1/public/sessions', { headers: key, json: i % 2 ? sessionBodyV1() : { bad: true } });
        expect(last.status).toBe(i % 2 ? 200 : 400);
        expect(last.headers.get('ratelimit-remaining')).toBe(String(100 - i));
      }
      const r = await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() });
      expect(r.status).toBe(429);
      expect(errorOf(r)).toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
        retry_after: 900,
        message: 'Too many requests, retry after 900 seconds',
      });
      expect(r.headers.get('retry-after')).toBe('900');
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      expect(r.headers.get('ratelimit-reset')).toBe('900');
      // the other merchant is not affected
      expect((await a2('POST', '/api/v1/public/sessions', { headers: k(s2.merchants[1]!.apiKey), json: sessionBodyV2() })).status).toBe(
        200,
      );
      c2.advance(899_000);
      const still = await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() });
      expect(still.status).toBe(429);
      expect([errorOf(still).retry_after, still.headers.get('retry-after'), still.headers.get('ratelimit-reset')]).toEqual([1, '1', '1']);
      c2.advance(1_000);
      const after = await a2('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() });
      expect(after.status).toBe(200);
      expect(after.headers.get('ratelimit-remaining')).toBe('99');
    } finally {
      await s2.close();
    }
  });
});

describe('A1 rate limit: one wait, and waiting it is enough', () => {
  it('mid-window, after a fraction of a second: the three waits agree, one second less is refused, exactly the wait succeeds', async () => {
    const { s: s3, clock: c3, api: a3 } = await server();
    try {
      const key = k(s3.merchants[0]!.apiKey);
      expect((await a3('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).status).toBe(200);
      c3.advance(437_250); // the window opened 437.25 s ago: 462.75 s are left, 463 rounded up
      for (let i = 2; i <= 100; i++)
        expect((await a3('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).status).toBe(200);
      const r = await a3('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() });
      expect(r.status).toBe(429);
      const wait = errorOf(r).retry_after as number;
      expect(wait).toBe(463);
      expect(r.headers.get('retry-after')).toBe(String(wait));
      expect(r.headers.get('ratelimit-reset')).toBe(String(wait));
      expect(errorOf(r).message).toBe(`Too many requests, retry after ${wait} seconds`);
      c3.advance((wait - 1) * 1000);
      expect((await a3('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).status).toBe(429);
      c3.advance(1000);
      expect((await a3('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).status).toBe(200);
    } finally {
      await s3.close();
    }
  });
});

describe('A2 / A3 verification and checkout', () => {
  it('token works only for its own session transaction and within its lifetime; dates DD/MM/YY', async () => {
    const a = (await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token;
    const b = (await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body.token;
    const pay = await api<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
      headers: k(K1),
      json: { session_token: a, outcome: 'success' },
    });
    expect(pay.status, pay.text).toBe(200);
    expect(pay.body).toMatchObject({ status: 'APPROVED', redirect_status: 'SUCCESS' });
    const ok = await api<S1['TransactionStatusRecord']>('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, {
      headers: { 'x-session-token': a },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.status).toBe('APPROVED');
    expect(ok.body.created_at).toMatch(/^\d{2}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/);
    const now = new Date(clock.now());
    expect(ok.body.created_at.slice(0, 8)).toBe(
      `${String(now.getUTCDate()).padStart(2, '0')}/${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCFullYear() % 100)}`,
    );
    const other = await api<S1['TransactionStatusRecord']>('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, {
      headers: { 'X-Session-Token': b },
    });
    expect(other.status).toBe(401);
    expect(errorOf(other).code).toBe('INVALID_SESSION_TOKEN');
    const missing = await api('GET', `/api/v1/public/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10/status`, {
      headers: { 'X-Session-Token': a },
    });
    expect(missing.status).toBe(404);
    expect(errorOf(missing).code).toBe('TRANSACTION_NOT_FOUND');
    const bogus = await api<S1['TransactionStatusRecord']>('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, {
      headers: { 'X-Session-Token': 'st_test_bogus' },
    });
    expect(bogus.status).toBe(401);
    // A3 (Variant 1) sees it; the other merchant does not; Variant 2 has no A3
    const a3 = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}`, { headers: k(K1) });
    expect(a3.body).toEqual({ id: pay.body.transaction_id, status: 'APPROVED', amount: 1299.5, currency: 'MAD' });
    const v2 = await api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}`, { headers: k(K2) });
    expect(v2.status).toBe(404);
    expect(errorOf(v2).code).toBe('ROUTE_NOT_FOUND');
  });

  it('token expires after 3600 s; an EXPIRED checkout transaction reads CANCELED, COMPLETED reads APPROVED', async () => {
    const { s: s2, clock: c2, api: a2 } = await server();
    try {
      const key = k(s2.merchants[0]!.apiKey);
      const tok = (await a2<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).body
        .token;
      const failed = await a2<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
        headers: key,
        json: { session_token: tok, outcome: 'failed' },
      });
      expect(failed.body).toMatchObject({ status: 'PENDING', redirect_status: 'FAILED' });
      const again = await a2<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
        headers: key,
        json: { session_token: tok, outcome: 'failed' },
      });
      expect(again.body.transaction_id).toBe(failed.body.transaction_id);
      c2.advance(1800_000);
      const exp = await a2<S1['TransactionStatusRecord']>('GET', `/api/v1/public/transactions/${failed.body.transaction_id}/status`, {
        headers: { 'X-Session-Token': tok },
      });
      expect(exp.body.status).toBe('CANCELED');
      const a3 = await a2<S1['TransactionVerification']>('GET', `/api/v1/public/transactions/${failed.body.transaction_id}`, {
        headers: key,
      });
      expect(a3.body.status).toBe('CANCELED');
      c2.advance(1800_000);
      const gone = await a2<S1['TransactionStatusRecord']>('GET', `/api/v1/public/transactions/${failed.body.transaction_id}/status`, {
        headers: { 'X-Session-Token': tok },
      });
      expect(gone.status).toBe(401);

      const tok2 = (await a2<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: key, json: sessionBodyV1() })).body
        .token;
      const paid = await a2<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
        headers: key,
        json: { session_token: tok2, outcome: 'success' },
      });
      const done = await a2<S1['PartnerTransaction']>('POST', `/api/v1/sandbox/transactions/${paid.body.transaction_id}/complete`, {
        headers: key,
      });
      expect(done.body.status).toBe('COMPLETED');
      const a2r = await a2<S1['TransactionStatusRecord']>('GET', `/api/v1/public/transactions/${paid.body.transaction_id}/status`, {
        headers: { 'X-Session-Token': tok2 },
      });
      expect(a2r.body.status).toBe('APPROVED');
      const payAgain = await a2<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
        headers: key,
        json: { session_token: tok2, outcome: 'success' },
      });
      expect(payAgain.status).toBe(400);
      expect(errorOf(payAgain).code).toBe('TRANSACTION_NOT_PENDING');
      expect(errorOf(payAgain).message).toBe('Transaction is not in PENDING status (current status: COMPLETED)');
      // another merchant's session
      const other = await a2<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
        headers: k(s2.merchants[1]!.apiKey),
        json: { session_token: tok2, outcome: 'success' },
      });
      expect(other.status).toBe(404);
      expect(errorOf(other).code).toBe('SESSION_NOT_FOUND');
    } finally {
      await s2.close();
    }
  });

  /** @checks redirect-return, ADR-017 */
  it('SDK: session summary, payment intent on allowed origins only, simulate with redirect back', async () => {
    const tok = (await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body
      .token;
    const st = { 'X-Session-Token': tok };
    const sum = await api('GET', '/api/v1/public/sdk/session', { headers: st });
    expect(sum.status, sum.text).toBe(200);
    expect(sum.body).toMatchObject({ merchant_name: 'Atlas Electronics', total: 1299.5, test_mode: true });
    for (const bad of [
      'javascript:alert(1)',
      '//evil.example/x',
      'https://evil.example/',
      'http://127.0.0.1:4010.evil.example/',
      'http://user@127.0.0.1:4010/',
      'data:text/html,x',
      'http://127.0.0.1:4011/',
    ]) {
      const r = await api('POST', '/api/v1/public/sdk/payment-intents', { headers: st, json: { redirect_url: bad } });
      expect(r.status, bad).toBe(400);
      expect(errorOf(r).code).toBe('INVALID_REDIRECT_URL');
    }
    const pi = await api<S1['PaymentIntent']>('POST', '/api/v1/public/sdk/payment-intents', {
      headers: st,
      json: { redirect_url: 'http://127.0.0.1:4010/shop/return?order=7', locale: 'fr' },
    });
    expect(pi.status, pi.text).toBe(201);
    expect(pi.body.checkout_url).toBe(`${t.s.baseUrl}/checkout/${pi.body.payment_intent_id}`);
    const sim = await api<S1['SessionPaymentResult']>('POST', `/api/v1/public/sdk/payment-intents/${pi.body.payment_intent_id}/simulate`, {
      headers: st,
      json: { outcome: 'success' },
    });
    expect(sim.status, sim.text).toBe(200);
    const back = new URL(sim.body.redirect_url ?? '');
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:4010/shop/return');
    expect(back.searchParams.get('order')).toBe('7');
    expect(back.searchParams.get('status')).toBe('SUCCESS');
    expect(back.searchParams.get('transaction_id')).toBe(sim.body.transaction_id);
    const popup = await api('POST', '/api/v1/public/sdk/payment-intents', {
      headers: st,
      json: { flow: 'popup', origin: 'http://localhost:4010' },
    });
    expect(popup.status, popup.text).toBe(201);
  });

  it('SDK cancel: the intent’s own return address with CANCELLED; nothing changes; refused once paid or for another session', async () => {
    const open = async () => {
      const tok = (await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body
        .token;
      const st = { 'X-Session-Token': tok };
      const pi = await api<S1['PaymentIntent']>('POST', '/api/v1/public/sdk/payment-intents', {
        headers: st,
        json: { redirect_url: 'http://127.0.0.1:4010/shop/return?order=9&transaction_id=forged' },
      });
      expect(pi.status, pi.text).toBe(201);
      return { st, id: pi.body.payment_intent_id };
    };
    const cancel = (id: string, st: Record<string, string>) =>
      api<S1['PaymentIntentCancellation']>('POST', `/api/v1/public/sdk/payment-intents/${id}/cancel`, { headers: st });

    // Before any payment: no transaction, and the forged transaction_id is removed.
    const a = await open();
    const before = await txCount();
    const c1 = await cancel(a.id, a.st);
    expect(c1.status, c1.text).toBe(200);
    expect(c1.body).toEqual({
      payment_intent_id: a.id,
      redirect_status: 'CANCELLED',
      redirect_url: 'http://127.0.0.1:4010/shop/return?order=9&status=CANCELLED',
    });
    expect(await txCount()).toBe(before);

    // After a failed payment: the PENDING checkout transaction is named and stays PENDING.
    const failed = await api<S1['SessionPaymentResult']>('POST', `/api/v1/public/sdk/payment-intents/${a.id}/simulate`, {
      headers: a.st,
      json: { outcome: 'failed' },
    });
    expect(failed.body.status).toBe('PENDING');
    const c2 = await cancel(a.id, a.st);
    expect(c2.body.transaction_id).toBe(failed.body.transaction_id);
    const back = new URL(c2.body.redirect_url ?? '');
    expect(Object.fromEntries(back.searchParams)).toEqual({ order: '9', status: 'CANCELLED', transaction_id: failed.body.transaction_id });
    const stillPending = await api<S1['TransactionStatusRecord']>(
      'GET',
      `/api/v1/public/transactions/${failed.body.transaction_id}/status`,
      { headers: a.st },
    );
    expect(stillPending.body.status).toBe('PENDING');

    // Another session's token, an unknown intent, no token.
    const b = await open();
    expect(errorOf(await cancel(a.id, b.st)).code).toBe('SESSION_NOT_FOUND');
    expect((await cancel('3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10', a.st)).status).toBe(404);
    expect(errorOf(await cancel(a.id, {})).code).toBe('INVALID_SESSION_TOKEN');

    // Once paid, the session cannot be left as cancelled.
    expect(
      (
        await api<S1['SessionPaymentResult']>('POST', `/api/v1/public/sdk/payment-intents/${a.id}/simulate`, {
          headers: a.st,
          json: { outcome: 'success' },
        })
      ).body.status,
    ).toBe('APPROVED');
    const c3 = await cancel(a.id, a.st);
    expect(c3.status).toBe(400);
    expect(errorOf(c3).code).toBe('TRANSACTION_NOT_PENDING');
    expect(errorOf(c3).message).toContain('APPROVED');
    expect(errorOf(c3).message).toBe('Transaction is not in PENDING status (current status: APPROVED)'); // x-state-machine's rejection
  });
});
