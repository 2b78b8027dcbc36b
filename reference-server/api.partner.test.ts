/** The API over HTTP, B family and across: B1–B4, expiry, bad input, concurrency, modes and keys, webhook deliveries. */
import { describe, expect, it } from 'vitest';
import { call, errorOf, item, partnerBody, server, sessionBodyV1, sharedServer, T0, type S1 } from './test-support/helpers.ts';

type Tx = S1['PartnerTransaction'];

const t = sharedServer();
const { clock, api, K1, K2, k, svc, txCount } = t;
let seq = 0;
const ref = () => `T-${Date.now().toString(36)}-${++seq}`;

async function createPartner(key = K1, over: Record<string, unknown> = {}) {
  const r = await api<Tx>('POST', '/api/v1/public/partner/transactions', {
    headers: svc(key),
    json: partnerBody({ vendorReference: ref(), ...over }),
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

describe('B1–B4 partner transactions', () => {
  it('B1 201 PENDING with updatedAt null, SMS in the outbox; B2 and B3 read it', async () => {
    const vr = ref();
    const r = await api<Tx>('POST', '/api/v1/public/partner/transactions', {
      headers: svc(K1),
      json: partnerBody({ vendorReference: vr, items: [{ ...item(1299.5), categoryId: 42 }] }),
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      status: 'PENDING',
      updatedAt: null,
      vendorReference: vr,
      totalAmount: 1299.5,
      merchantName: 'Atlas Electronics',
      storeName: 'Atlas Casablanca',
    });
    expect(r.body.orderReference).toMatch(/^ORD-[0-9A-Z]{10}$/);
    expect(r.body.items[0]).toMatchObject({ reference: 'SKU-100', categoryId: 42, unitPrice: 1299.5 });
    const sms = await api<S1['SmsOutbox']>('GET', '/api/v1/sandbox/sms', { headers: k(K1) });
    expect(sms.body.data.find((m: { transactionId: string }) => m.transactionId === r.body.id)).toMatchObject({ to: '212612345678' });
    const b2 = await api<Tx>('GET', `/api/v1/public/partner/transactions/${r.body.id}`, { headers: { 'X-Api-Key': K1 } });
    expect(b2.body).toEqual(r.body);
    const b3 = await api('GET', `/api/v1/public/partner/transactions/vendor/${vr}`, { headers: { 'x-api-key': K1 } });
    expect(b3.body).toEqual(r.body);
    const noRef = await createPartner(K1, { vendorReference: undefined });
    expect(noRef.vendorReference).toBeNull();
    expect(noRef.items[0]!.categoryId).toBeNull();
  });

  it('B1 409 for a vendorReference the merchant already used; another merchant may use it', async () => {
    const vr = ref();
    await createPartner(K1, { vendorReference: vr });
    const before = await txCount();
    const dup = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody({ vendorReference: vr }) });
    expect(dup.status).toBe(409);
    expect(errorOf(dup)).toEqual({ code: 'DUPLICATE_VENDOR_REFERENCE', message: `vendorReference ${vr} already exists for this merchant` });
    expect(await txCount()).toBe(before);
    const other = await api('POST', '/api/v1/public/partner/transactions', {
      headers: svc(K2),
      json: partnerBody({ vendorReference: vr }),
    });
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
    const before = await txCount();
    const r = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody(over) });
    expect(r.status, r.text).toBe(status);
    expect(errorOf(r).code).toBe(code);
    if (code === 'VALIDATION_ERROR') expect(errorOf(r).details?.length).toBeGreaterThan(0);
    expect(await txCount()).toBe(before);
  });

  it('B1 accepts the range edges 500 and 15000', async () => {
    await createPartner(K1, { total: 500, items: [item(500)] });
    await createPartner(K1, { total: 15000, items: [item(7500, 2)] });
  });

  it('B1 with X-API-Key instead of X-Service-Key → 401', async () => {
    const r = await api('POST', '/api/v1/public/partner/transactions', { headers: k(K1), json: partnerBody() });
    expect(r.status).toBe(401);
    expect(errorOf(r).code).toBe('INVALID_API_KEY');
  });

  it('B2/B3/B4: another merchant’s transaction gets the identical 404 body as a missing one', async () => {
    const t = await createPartner(K1);
    const missingId = await api('GET', '/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10', {
      headers: { 'X-Api-Key': K2 },
    });
    const foreignId = await api<Tx>('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': K2 } });
    expect(foreignId.status).toBe(404);
    expect(foreignId.text).toBe(missingId.text);
    const foreignRef = await api<Tx>('GET', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}`, {
      headers: { 'X-Api-Key': K2 },
    });
    const missingRef = await api('GET', `/api/v1/public/partner/transactions/vendor/NOPE-${ref()}`, { headers: { 'X-Api-Key': K2 } });
    expect(foreignRef.text).toBe(missingRef.text);
    const foreignCancel = await api<Tx>('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, {
      headers: { 'X-Api-Key': K2 },
    });
    expect(foreignCancel.status).toBe(404);
    expect(foreignCancel.text).toBe(missingId.text);
    expect((await api<Tx>('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': K1 } })).body.status).toBe(
      'PENDING',
    );
    // a checkout transaction is not a partner transaction (ADR-019)
    const tok = (await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(K1), json: sessionBodyV1() })).body
      .token;
    const paid = await api<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
      headers: k(K1),
      json: { session_token: tok, outcome: 'failed' },
    });
    expect(
      (await api<Tx>('GET', `/api/v1/public/partner/transactions/${paid.body.transaction_id}`, { headers: { 'X-Api-Key': K1 } })).status,
    ).toBe(404);
  });

  it('B4 cancels only from PENDING; updatedAt set; transaction.cancelled recorded; 400 names the status', async () => {
    const t = await createPartner(K1);
    const c = await api<Tx>('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, {
      headers: { 'X-Api-Key': K1 },
    });
    expect(c.status, c.text).toBe(200);
    expect(c.body.status).toBe('CANCELED');
    expect(c.body.updatedAt).toBe(new Date(clock.now()).toISOString());
    const again = await api<Tx>('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, {
      headers: { 'X-Api-Key': K1 },
    });
    expect(again.status).toBe(400);
    expect(errorOf(again)).toEqual({
      code: 'TRANSACTION_NOT_PENDING',
      message: 'Transaction is not in PENDING status (current status: CANCELED)',
    });
    const a = await createPartner(K1);
    expect((await api<Tx>('POST', `/api/v1/sandbox/transactions/${a.id}/confirm`, { headers: k(K1) })).body.status).toBe('APPROVED');
    const fromApproved = await api<Tx>('PUT', `/api/v1/public/partner/transactions/vendor/${a.vendorReference}/cancel`, {
      headers: { 'X-Api-Key': K1 },
    });
    expect(errorOf(fromApproved).message).toBe('Transaction is not in PENDING status (current status: APPROVED)');
    const deliveries = (await api<S1['WebhookDeliveryList']>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(K1) })).body.data;
    const cancelled = deliveries.filter((d: { transactionId: string }) => d.transactionId === t.id);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({
      event: 'transaction.cancelled',
      state: 'no_endpoint',
      payload: { event: 'transaction.cancelled', data: { id: t.id, status: 'CANCELED', vendorReference: t.vendorReference } },
    });
    const approved = deliveries.find(
      (d: { transactionId: string; event: string }) => d.transactionId === a.id && d.event === 'transaction.approved',
    );
    expect(approved!.payload.data).toHaveProperty('approvedAt');
  });

  it('sandbox complete only from APPROVED; confirm only from PENDING', async () => {
    const t = await createPartner(K1);
    const early = await api<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/complete`, { headers: k(K1) });
    expect(errorOf(early)).toEqual({
      code: 'TRANSACTION_NOT_APPROVED',
      message: 'Transaction is not in APPROVED status (current status: PENDING)',
    });
    await api<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, { headers: k(K1) });
    const twice = await api<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, { headers: k(K1) });
    expect(errorOf(twice).code).toBe('TRANSACTION_NOT_PENDING');
    const done = await api<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/complete`, { headers: k(K1) });
    expect(done.body.status).toBe('COMPLETED');
    const cancel = await api<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/cancel`, { headers: k(K1) });
    expect(errorOf(cancel).message).toBe('Transaction is not in PENDING status (current status: COMPLETED)');
  });
});

describe('payment window expiry', () => {
  it('PENDING until createdAt + window − 1 ms, EXPIRED exactly at the edge, on every read, with one transaction.expired', async () => {
    const { s: s2, clock: c2, api: a2 } = await server({ paymentWindow: '30m', sweepIntervalMs: 3_600_000 });
    try {
      const key = s2.merchants[0]!.apiKey;
      const t = (
        await a2<Tx>('POST', '/api/v1/public/partner/transactions', { headers: svc(key), json: partnerBody({ vendorReference: 'EDGE-1' }) })
      ).body;
      c2.advance(1800_000 - 1);
      expect((await a2<Tx>('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': key } })).body.status).toBe(
        'PENDING',
      );
      c2.advance(1);
      const b3 = await a2<Tx>('GET', '/api/v1/public/partner/transactions/vendor/EDGE-1', { headers: { 'X-Api-Key': key } });
      expect(b3.body.status).toBe('EXPIRED');
      expect(b3.body.updatedAt).toBe(new Date(Date.parse(t.createdAt) + 1800_000).toISOString());
      const b2 = await a2<Tx>('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': key } });
      expect(b2.body.status).toBe('EXPIRED');
      const confirm = await a2<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, { headers: k(key) });
      expect(errorOf(confirm).message).toBe('Transaction is not in PENDING status (current status: EXPIRED)');
      const ev = (await a2<S1['WebhookDeliveryList']>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(key) })).body.data.filter(
        (d: { event: string }) => d.event === 'transaction.expired',
      );
      expect(ev).toHaveLength(1);
      expect(ev[0]!.payload.data).toMatchObject({ id: t.id, status: 'EXPIRED', expiredAt: b3.body.updatedAt });
    } finally {
      await s2.close();
    }
  });

  it('advancing the sandbox clock expires due transactions before the answer (sweep), per merchant', async () => {
    const { s: s2, api: a2 } = await server({ paymentWindow: '10m', sweepIntervalMs: 3_600_000 });
    try {
      const [m1, m2] = s2.merchants;
      const t1 = (await a2<Tx>('POST', '/api/v1/public/partner/transactions', { headers: svc(m1!.apiKey), json: partnerBody() })).body;
      const t2 = (await a2<Tx>('POST', '/api/v1/public/partner/transactions', { headers: svc(m2!.apiKey), json: partnerBody() })).body;
      const adv = await a2<S1['SandboxClock']>('POST', '/api/v1/sandbox/clock/advance', { headers: k(m1!.apiKey), json: { seconds: 600 } });
      expect(adv.body.offsetSeconds).toBe(600);
      const repo = s2.handle.core.repo;
      expect((await repo.get('transactions', t1.id))!.status).toBe('EXPIRED');
      expect((await repo.get('transactions', t2.id))!.status).toBe('PENDING');
      const clockOf2 = await a2<S1['SandboxClock']>('GET', '/api/v1/sandbox/clock', { headers: k(m2!.apiKey) });
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
    [
      'over 100 kB',
      { 'content-type': 'application/json' },
      JSON.stringify(partnerBody({ pad: 'x'.repeat(110_000) })),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['deeply nested', { 'content-type': 'application/json' }, `${'['.repeat(5000)}${']'.repeat(5000)}`, 400, 'VALIDATION_ERROR'],
    [
      '__proto__ key',
      { 'content-type': 'application/json' },
      JSON.stringify(partnerBody()).replace('{', '{"__proto__":{"admin":true},'),
      400,
      'VALIDATION_ERROR',
    ],
    [
      'constructor key',
      { 'content-type': 'application/json' },
      JSON.stringify(partnerBody()).replace('{', '{"constructor":{"prototype":{}},'),
      400,
      'VALIDATION_ERROR',
    ],
    ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'VALIDATION_ERROR'],
    ['a JSON string', { 'content-type': 'application/json' }, '"x"', 400, 'VALIDATION_ERROR'],
    ['invalid UTF-8', { 'content-type': 'application/json' }, Buffer.from([0x7b, 0xff, 0x7d]), 400, 'VALIDATION_ERROR'],
  ])('%s → %d %s', async (_n, headers, raw, status, code) => {
    const before = await txCount();
    const r = await api('POST', P, { headers: { ...svc(K1), ...headers }, raw: raw as string });
    expect(r.status, r.text).toBe(status);
    expect(errorOf(r).code).toBe(code);
    expect(await txCount()).toBe(before);
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
      const r = await call(t.s.baseUrl, path === P ? 'POST' : 'GET', path, { headers, json: path === P ? partnerBody() : undefined });
      expect(r.status).toBe(401);
      expect(errorOf(r).code).toBe('INVALID_API_KEY');
    }
    const dupToken = await call(t.s.baseUrl, 'GET', '/api/v1/public/sdk/session', {
      headers: [
        ['X-Session-Token', 'a'],
        ['X-Session-Token', 'b'],
      ],
    });
    expect(errorOf(dupToken).code).toBe('INVALID_SESSION_TOKEN');
  });

  it('unknown route, unknown method, unknown query parameter, bad path parameter, bad percent-escape', async () => {
    const a = await api('GET', '/api/v1/nowhere', { headers: k(K1) });
    expect(a.status).toBe(404);
    expect(errorOf(a).code).toBe('ROUTE_NOT_FOUND');
    const b = await api('DELETE', '/api/v1/public/sessions', { headers: k(K1) });
    expect(errorOf(b).code).toBe('METHOD_NOT_ALLOWED'); // ADR-024
    expect(b.status).toBe(405);
    expect(b.headers.get('allow')).toBe('POST');
    const c = await api('GET', '/api/v1/public/partner/transactions/not-a-uuid', { headers: { 'X-Api-Key': K1 } });
    expect(c.status).toBe(400);
    expect(errorOf(c)).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'path.transactionId' }] });
    const d = await api('GET', '/api/v1/sandbox/clock?debug=1', { headers: k(K1) });
    expect(d.status).toBe(400);
    expect(errorOf(d)).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.debug' }] }); // ADR-022
    const e = await api('GET', '/api/v1/public/partner/transactions/%E0%A4%A', { headers: k(K1) });
    expect(e.status).toBe(400);
    expect(errorOf(e)).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'path.transactionId', message: 'is not valid percent-encoding' }],
    });
  });
});

describe('concurrency', () => {
  it('50 simultaneous cancels of one transaction → exactly one 200', async () => {
    const t = await createPartner(K1);
    const rs = await Promise.all(
      Array.from({ length: 50 }, () =>
        api<Tx>('PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, { headers: { 'X-Api-Key': K1 } }),
      ),
    );
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 400 && errorOf(r).code === 'TRANSACTION_NOT_PENDING')).toHaveLength(49);
    const events = (await api<S1['WebhookDeliveryList']>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(K1) })).body.data.filter(
      (d: { transactionId: string }) => d.transactionId === t.id,
    );
    expect(events).toHaveLength(1);
  });
  it('50 simultaneous creates with one vendorReference → one 201 and 49 × 409', async () => {
    const vr = ref();
    const rs = await Promise.all(
      Array.from({ length: 50 }, () =>
        api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody({ vendorReference: vr }) }),
      ),
    );
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(49);
  });
});

describe('modes and keys (ADR-020)', () => {
  const live = { name: 'Live Shop', storeName: 'Live Store', apiKey: 'sk_live_shop_0123456789abcdef', variant: 1 as const };
  const test = { name: 'Test Shop', storeName: 'Test Store', apiKey: 'sk_test_shop_0123456789abcdef', variant: 2 as const };
  it('production refuses test keys and does not serve sandbox routes; sends SMS through the sender', async () => {
    const sent: string[] = [];
    const { s: p, api: a } = await server({
      mode: 'production',
      merchants: [live, test],
      smsSender: { send: async (m) => void sent.push(`${m.to}: ${m.body}`) },
    });
    try {
      const t = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(test.apiKey), json: partnerBody() });
      expect(t.status).toBe(401);
      const l = await a('POST', '/api/v1/public/partner/transactions', { headers: svc(live.apiKey), json: partnerBody() });
      expect(l.status, l.text).toBe(201);
      const sb = await a('GET', '/api/v1/sandbox/sms', { headers: k(live.apiKey) });
      expect(sb.status).toBe(404);
      expect(errorOf(sb).code).toBe('ROUTE_NOT_FOUND');
      const tok = (await a<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: k(live.apiKey), json: sessionBodyV1() }))
        .body.token;
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
  /** @checks b1-merchant-inactive, b1-credit-limit */
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
      expect(errorOf(inactive).code).toBe('MERCHANT_INACTIVE');
      const key = 'sk_test_limited_0123456789';
      expect(
        (
          await a('POST', '/api/v1/public/partner/transactions', {
            headers: svc(key),
            json: partnerBody({ total: 1000, items: [item(1000)] }),
          })
        ).status,
      ).toBe(201);
      const second = await a<Tx>('POST', '/api/v1/public/partner/transactions', {
        headers: svc(key),
        json: partnerBody({ total: 1000, items: [item(1000)] }),
      });
      expect(second.status).toBe(201);
      const third = await a('POST', '/api/v1/public/partner/transactions', {
        headers: svc(key),
        json: partnerBody({ total: 500, items: [item(500)] }),
      });
      expect(third.status).toBe(422);
      expect(errorOf(third).code).toBe('CREDIT_LIMIT_EXCEEDED');
      // cancelling frees the limit
      await a<Tx>('POST', `/api/v1/sandbox/transactions/${second.body.id}/cancel`, { headers: k(key) });
      expect(
        (
          await a('POST', '/api/v1/public/partner/transactions', {
            headers: svc(key),
            json: partnerBody({ total: 500, items: [item(500)] }),
          })
        ).status,
      ).toBe(201);
    } finally {
      await p.close();
    }
  });
});

describe('webhook deliveries (sandbox)', () => {
  it('redeliver: unknown or foreign id → 404 DELIVERY_NOT_FOUND; own → 200 with the same id and body', async () => {
    const t = await createPartner(K1);
    await api<Tx>('POST', `/api/v1/sandbox/transactions/${t.id}/cancel`, { headers: k(K1) });
    const d = (await api<S1['WebhookDeliveryList']>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: k(K1) })).body.data[0]!;
    const foreign = await api('POST', `/api/v1/sandbox/webhook-deliveries/${d.id}/redeliver`, { headers: k(K2) });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('DELIVERY_NOT_FOUND');
    const own = await api<S1['WebhookDelivery']>('POST', `/api/v1/sandbox/webhook-deliveries/${d.id}/redeliver`, { headers: k(K1) });
    expect(own.status, own.text).toBe(200);
    expect(own.body.id).toBe(d.id);
    expect(own.body.payload).toEqual(d.payload);
  });
  it('the sandbox clock starts at the base clock', () => {
    expect(clock.now()).toBeGreaterThanOrEqual(T0);
  });
});
