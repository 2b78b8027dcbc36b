import { describe, expect, it } from 'vitest';
import { valueAt } from '../../lib/json.ts';
import { loadBundledDocument, variants } from '../../generated/index.ts';
import { createPayLaterClientV1, createPayLaterClientV2, operationAuthTable, parseApiError, PayLaterApiError } from './index.ts';

type Seen = { method: string; url: string; headers: Headers; body: string };

function recorder(answer: (req: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch = async (req: Request) => {
    seen.push({ method: req.method, url: req.url, headers: new Headers(req.headers), body: await req.clone().text() });
    return answer(req);
  };
  return { seen, fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('auth header per operation, read from the contract', () => {
  it('maps every operation of both variants with a security scheme to the header it names', () => {
    for (const variant of [1, 2] as const) {
      const doc = loadBundledDocument(variant);
      const ops = variants[variant === 1 ? 'v1' : 'v2'].operations as Record<
        string,
        { method: string; path: string; security: readonly string[] }
      >;
      const table = operationAuthTable(variant);
      // Operations without a security scheme (the service probes, ADR-040) send no credential.
      expect(table.size).toBe(Object.values(ops).filter((op) => op.security.length > 0).length);
      for (const [id, op] of Object.entries(ops)) {
        if (op.security.length === 0) {
          expect(table.has(`${op.method} ${op.path}`)).toBe(false);
          continue;
        }
        const auth = table.get(`${op.method} ${op.path}`)!;
        expect(auth.operationId).toBe(id);
        expect(auth.header).toBe(valueAt(doc, 'components', 'securitySchemes', op.security[0]!, 'name'));
      }
    }
    // The seed's four header spellings all appear.
    const headers = new Set([...operationAuthTable(1).values()].map((a) => a.header));
    expect(headers).toEqual(new Set(['X-API-Key', 'X-Session-Token', 'X-Service-Key', 'X-Api-Key']));
  });

  it('sends X-API-Key on A1, X-Session-Token on A2, X-Service-Key on B1, X-Api-Key on B2-B4 (raw header names)', async () => {
    const { seen, fetch } = recorder(() => json(200, {}));
    const c = createPayLaterClientV2({ baseUrl: 'http://api.test/', apiKey: 'sk_test_k', fetch });
    await c.createSession({ total: '600.00', currency: 'MAD', items: [{ id: 'a', name: 'A', price: 600, quantity: 1 }] });
    await c.getTransactionStatus('tx-1', 'st_tok');
    await c.createPartnerTransaction({
      customerPhone: '212600000000',
      total: 600,
      currency: 'MAD',
      items: [{ name: 'A', quantity: 1, unitPrice: 600 }],
    });
    await c.getPartnerTransaction('tx-2');
    await c.getPartnerTransactionByVendorReference('ref-1');
    await c.cancelPartnerTransactionByVendorReference('ref-1');
    await c.sdk.getSession('st_tok2');
    const auth = seen.map((s) => ({
      m: s.method,
      u: s.url,
      api: s.headers.get('x-api-key'),
      st: s.headers.get('x-session-token'),
      svc: s.headers.get('x-service-key'),
    }));
    expect(auth).toEqual([
      { m: 'POST', u: 'http://api.test/api/v1/public/sessions', api: 'sk_test_k', st: null, svc: null },
      { m: 'GET', u: 'http://api.test/api/v1/public/transactions/tx-1/status', api: null, st: 'st_tok', svc: null },
      { m: 'POST', u: 'http://api.test/api/v1/public/partner/transactions', api: null, st: null, svc: 'sk_test_k' },
      { m: 'GET', u: 'http://api.test/api/v1/public/partner/transactions/tx-2', api: 'sk_test_k', st: null, svc: null },
      { m: 'GET', u: 'http://api.test/api/v1/public/partner/transactions/vendor/ref-1', api: 'sk_test_k', st: null, svc: null },
      { m: 'PUT', u: 'http://api.test/api/v1/public/partner/transactions/vendor/ref-1/cancel', api: 'sk_test_k', st: null, svc: null },
      { m: 'GET', u: 'http://api.test/api/v1/public/sdk/session', api: null, st: 'st_tok2', svc: null },
    ]);
    expect(JSON.parse(seen[0]!.body)).toEqual({
      total: '600.00',
      currency: 'MAD',
      items: [{ id: 'a', name: 'A', price: 600, quantity: 1 }],
    });
  });

  it('V1 A3 uses X-API-Key and encodes path parameters', async () => {
    const { seen, fetch } = recorder(() => json(200, { id: 'a/b', status: 'APPROVED', amount: 600, currency: 'MAD' }));
    const c = createPayLaterClientV1({ baseUrl: 'http://api.test', apiKey: 'sk_test_1', fetch });
    const v = await c.verifyTransaction('a/b');
    expect(v.status).toBe('APPROVED');
    expect(seen[0]!.url).toBe('http://api.test/api/v1/public/transactions/a%2Fb');
    expect(seen[0]!.headers.get('X-API-Key')).toBe('sk_test_1');
  });

  it('a session-token call without any token sends no auth header (the server answers 401)', async () => {
    const { seen, fetch } = recorder(() =>
      json(401, { error: { code: 'INVALID_SESSION_TOKEN', message: 'Invalid or expired session token' } }),
    );
    const c = createPayLaterClientV2({ baseUrl: 'http://api.test', apiKey: 'sk_test_k', fetch });
    const err = await c.getTransactionStatus('tx').catch((e: unknown) => e);
    expect(seen[0]!.headers.get('x-session-token')).toBeNull();
    expect(seen[0]!.headers.get('x-api-key')).toBeNull();
    expect(err).toBeInstanceOf(PayLaterApiError);
    expect(err).toMatchObject({ status: 401, code: 'INVALID_SESSION_TOKEN', operationId: 'getTransactionStatusBySessionToken' });
  });
});

describe("typed errors (ADR-001 and the seed's other shapes)", () => {
  it('reads {error:{code,message,details}}', () => {
    const e = parseApiError(400, {
      error: { code: 'INVALID_ITEMS', message: 'bad', details: [{ path: '/items/0/quantity', message: 'min 1' }] },
    });
    expect(e).toMatchObject({
      status: 400,
      code: 'INVALID_ITEMS',
      message: 'bad',
      details: [{ path: '/items/0/quantity', message: 'min 1' }],
    });
    expect(e.retryAfter).toBeUndefined();
  });
  it('reads retry_after of a 429, and falls back to the Retry-After header', () => {
    expect(parseApiError(429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow', retry_after: 60 } }).retryAfter).toBe(60);
    const h = new Headers({ 'Retry-After': '42' });
    expect(parseApiError(429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow' } }, h).retryAfter).toBe(42);
  });
  it('reads {error:{message}} and {error:"text"} with code null', () => {
    expect(parseApiError(401, { error: { message: 'Invalid API key' } })).toMatchObject({
      status: 401,
      code: null,
      message: 'Invalid API key',
    });
    expect(parseApiError(401, { error: 'Invalid or expired session token' })).toMatchObject({
      code: null,
      message: 'Invalid or expired session token',
    });
    expect(parseApiError(401, '{"error":"as text"}')).toMatchObject({ code: null, message: 'as text' });
  });
  it('an unknown code, a non-JSON body or an empty body still gives a typed error', () => {
    expect(parseApiError(400, { error: { code: 'NOT_A_CODE', message: 'm' } }).code).toBeNull();
    expect(parseApiError(502, '<html>Bad gateway</html>')).toMatchObject({
      status: 502,
      code: null,
      message: 'HTTP 502: <html>Bad gateway</html>',
    });
    expect(parseApiError(500, undefined)).toMatchObject({ status: 500, code: null, message: 'HTTP 500' });
  });
  it('the client throws PayLaterApiError with status, code and retryAfter from a real Response', async () => {
    const { fetch } = recorder(() =>
      json(429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests', retry_after: 60 } }, { 'Retry-After': '60' }),
    );
    const c = createPayLaterClientV1({ baseUrl: 'http://api.test', apiKey: 'k', fetch });
    const err = (await c
      .createSession({ total: 600, currency: 'MAD', items: [{ id: 'a', name: 'A', price: 600, quantity: 1 }] })
      .catch((e: unknown) => e)) as PayLaterApiError;
    expect(err).toBeInstanceOf(PayLaterApiError);
    expect(err).toBeInstanceOf(Error);
    expect({ s: err.status, c: err.code, r: err.retryAfter, m: err.message }).toEqual({
      s: 429,
      c: 'RATE_LIMIT_EXCEEDED',
      r: 60,
      m: 'Too many requests',
    });
  });
  it('the client reads a text/plain error body', async () => {
    const { fetch } = recorder(() => new Response('upstream down', { status: 503, headers: { 'content-type': 'text/plain' } }));
    const c = createPayLaterClientV2({ baseUrl: 'http://api.test', apiKey: 'k', fetch });
    await expect(c.getPartnerTransaction('x')).rejects.toMatchObject({ status: 503, code: null, message: 'HTTP 503: upstream down' });
  });
});

describe('paginated sandbox lists (ADR-028)', () => {
  it('sends limit and cursor as the declared query parameters, and none when not given', async () => {
    const { seen, fetch } = recorder(() => json(200, { data: [], nextCursor: null }));
    const c = createPayLaterClientV1({ baseUrl: 'http://api.test', apiKey: 'sk_test_k', fetch });
    await c.sandbox.listSms({ limit: 2, cursor: 'abc' });
    await c.sandbox.listWebhookDeliveries({ limit: 100 });
    await c.sandbox.listSms();
    expect(seen.map((r) => r.url)).toEqual([
      'http://api.test/api/v1/sandbox/sms?limit=2&cursor=abc',
      'http://api.test/api/v1/sandbox/webhook-deliveries?limit=100',
      'http://api.test/api/v1/sandbox/sms',
    ]);
  });

  it('iterates every page, following nextCursor until it is null, from the cursor given', async () => {
    const book: Record<string, { data: number[]; nextCursor: string | null }> = {
      first: { data: [1, 2], nextCursor: 'p2' },
      p2: { data: [3, 4], nextCursor: 'p3' },
      p3: { data: [5], nextCursor: null },
    };
    const { seen, fetch } = recorder((req) => json(200, book[new URL(req.url).searchParams.get('cursor') ?? 'first']));
    const c = createPayLaterClientV2({ baseUrl: 'http://api.test', apiKey: 'sk_test_k', fetch });
    const all: unknown[] = [];
    for await (const page of c.sandbox.webhookDeliveryPages({ limit: 2 })) all.push(...page.data);
    expect(all).toEqual([1, 2, 3, 4, 5]);
    expect(seen.map((r) => new URL(r.url).search)).toEqual(['?limit=2', '?limit=2&cursor=p2', '?limit=2&cursor=p3']);
    const rest: unknown[] = [];
    for await (const page of c.sandbox.smsPages({ cursor: 'p2' })) rest.push(...page.data);
    expect(rest).toEqual([3, 4, 5]);
  });
});
