/**
 * The contract router (ADR-050) on a small app of its own: typed handlers answer, every refusal
 * has the contract's code, status and shape, an operation without a handler answers 501, 404/405/HEAD
 * follow ADR-024, and responses are checked against the document unless switched off.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TX, type Tx } from './test-support/transaction.ts';
import { call, errorOf } from '../reference-server/test-support/helpers.ts';
import {
  ApiError,
  createContractRouter,
  NOT_IMPLEMENTED,
  notImplemented,
  PASS,
  routeNotFound,
  type HandlersOf,
  type OperationEntry,
} from './index.ts';

const KEY = 'sk_test_router';

interface Merchant {
  id: string;
}

const authenticated: string[] = [];
const internalErrors: unknown[] = [];
function authenticate(req: express.Request, op: OperationEntry): Merchant {
  authenticated.push(op.operationId);
  if (req.get(op.auth!.header) !== KEY) throw new ApiError('INVALID_API_KEY', 'Invalid API key');
  return { id: 'm1' };
}

const handlers: Partial<HandlersOf<Merchant>[1]> = {
  getPartnerTransaction: ({ params }, { caller }) =>
    params.transactionId === TX.id && caller.id === 'm1'
      ? { status: 200, body: TX }
      : { status: 404, body: { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } } },
  createSession: ({ body }) => ({
    status: 200,
    body: { token: `st_${body.items.length}`, expiresAt: '2026-01-01T01:00:00.000Z' },
    headers: { 'RateLimit-Limit': 100, 'RateLimit-Remaining': 99, 'RateLimit-Reset': 900, 'RateLimit-Policy': '100;w=900' },
  }),
  sandboxGetClock: notImplemented,
  sandboxListSms: () => ({ status: 200, body: { data: [], nextCursor: null } }),
  // A broken body, as a handler typed loosely could send: the response check answers 500.
  getPartnerTransactionByVendorReference: () => ({ status: 200, body: { ...TX, totalAmount: 'six hundred' } }) as never,
  getHealth: (_req, { caller }) => ({ status: 200, body: { status: caller === undefined ? 'ok' : 'caller?' } }) as never,
};

function appWith(validateResponses?: boolean): express.Express {
  const app = express();
  app.use(createContractRouter({ variant: 1, handlers, authenticate, validateResponses, onInternalError: (e) => internalErrors.push(e) }));
  app.use(routeNotFound);
  return app;
}

let server: Server;
let unchecked: Server;
let base = '';
let baseUnchecked = '';
const listen = (app: express.Express): Promise<Server> =>
  new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
beforeAll(async () => {
  server = await listen(appWith());
  unchecked = await listen(appWith(false));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  baseUnchecked = `http://127.0.0.1:${(unchecked.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => unchecked.close(r));
});

const auth = { 'X-Api-Key': KEY };
const txPath = `/api/v1/public/partner/transactions/${TX.id}`;

// @checks ADR-050
describe('createContractRouter', () => {
  it('runs the handler bound by operationId with the authenticated caller and validated path parameters', async () => {
    const a = await call<Tx>(base, 'GET', txPath, { headers: auth });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(TX);
    // one write with its length, not a chunked body (headers written before the body)
    expect([a.headers.get('content-length'), a.headers.get('transfer-encoding')]).toEqual([String(Buffer.byteLength(a.text)), null]);
    const missing = await call(base, 'GET', '/api/v1/public/partner/transactions/0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61', { headers: auth });
    expect([missing.status, errorOf(missing).code]).toEqual([404, 'TRANSACTION_NOT_FOUND']);
  });

  it('answers what authenticate throws, before reading the body; an open operation is not authenticated and gets no caller', async () => {
    const a = await call(base, 'POST', '/api/v1/public/sessions', { headers: { 'X-API-Key': 'nope' }, raw: '{not json' });
    expect([a.status, errorOf(a).code]).toEqual([401, 'INVALID_API_KEY']);
    authenticated.length = 0;
    const h = await call(base, 'GET', '/healthz');
    expect([h.status, h.body]).toEqual([200, { status: 'ok' }]);
    expect(authenticated).toEqual([]);
  });

  it('answers 501 NOT_IMPLEMENTED in the error shape for an operation without a handler, after authentication', async () => {
    const a = await call(base, 'PUT', '/api/v1/public/partner/transactions/vendor/ORDER-1/cancel', { headers: auth });
    expect(a.status).toBe(501);
    expect(a.body).toEqual({
      error: { code: NOT_IMPLEMENTED, message: 'Operation cancelPartnerTransactionByVendorReference is not implemented' },
    });
    const unauth = await call(base, 'PUT', '/api/v1/public/partner/transactions/vendor/ORDER-1/cancel');
    expect(unauth.status).toBe(401);
    const stub = await call(base, 'GET', '/api/v1/sandbox/clock', { headers: { 'X-API-Key': KEY } });
    expect([stub.status, errorOf(stub).message]).toEqual([501, 'Operation sandboxGetClock is not implemented']);
  });

  it("maps request validation to the contract's codes: x-error-code of the failing field, undeclared query parameters (ADR-022)", async () => {
    const ok = { total: 600, currency: 'MAD', items: [{ id: 'a', name: 'A', price: 600, quantity: 1 }] };
    const created = await call(base, 'POST', '/api/v1/public/sessions', { headers: { 'X-API-Key': KEY }, json: ok });
    expect([created.status, created.body, created.headers.get('ratelimit-policy')]).toEqual([
      200,
      { token: 'st_1', expiresAt: '2026-01-01T01:00:00.000Z' },
      '100;w=900',
    ]);
    const currency = await call(base, 'POST', '/api/v1/public/sessions', {
      headers: { 'X-API-Key': KEY },
      json: { ...ok, currency: 'EUR' },
    });
    expect([currency.status, errorOf(currency).code]).toEqual([400, 'INVALID_CURRENCY']);
    const items = await call(base, 'POST', '/api/v1/public/sessions', { headers: { 'X-API-Key': KEY }, json: { ...ok, items: [] } });
    expect([items.status, errorOf(items).code]).toEqual([400, 'INVALID_ITEMS']);
    const query = await call(base, 'GET', `${txPath}?expand=items`, { headers: auth });
    expect([query.status, errorOf(query).code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(query).details?.[0]?.path).toBe('query.expand');
    const declared = await call(base, 'GET', '/api/v1/sandbox/sms?limit=5', { headers: { 'X-API-Key': KEY } });
    expect([declared.status, declared.body]).toEqual([200, { data: [], nextCursor: null }]);
  });

  it('reads the body as the contract says: a member named twice (ADR-023), not JSON, too large, malformed path escapes', async () => {
    const h = { 'X-API-Key': KEY, 'Content-Type': 'application/json' };
    const twice = await call(base, 'POST', '/api/v1/public/sessions', {
      headers: h,
      raw: '{"total":600,"total":600,"currency":"MAD","items":[{"id":"a","name":"A","price":600,"quantity":1}]}',
    });
    expect([twice.status, errorOf(twice).code, errorOf(twice).details]).toEqual([
      400,
      'VALIDATION_ERROR',
      [{ path: '/total', message: 'is named twice' }],
    ]);
    const text = await call(base, 'POST', '/api/v1/public/sessions', {
      headers: { 'X-API-Key': KEY, 'Content-Type': 'text/plain' },
      raw: '{}',
    });
    expect([text.status, errorOf(text).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const big = await call(base, 'POST', '/api/v1/public/sessions', { headers: h, raw: `{"pad":"${'x'.repeat(200_000)}"}` });
    expect([big.status, errorOf(big).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const escape = await call(base, 'GET', '/api/v1/public/partner/transactions/%E0%A4%A', { headers: auth });
    expect([escape.status, errorOf(escape).code, errorOf(escape).details?.[0]?.path]).toEqual([
      400,
      'VALIDATION_ERROR',
      'path.transactionId',
    ]);
  });

  it('HEAD answers as GET without a body; another method on a served path answers 405 with Allow; other paths go on (ADR-024)', async () => {
    const head = await call(base, 'HEAD', txPath, { headers: auth });
    expect([head.status, head.text, head.headers.get('content-type')]).toEqual([200, '', 'application/json; charset=utf-8']);
    const del = await call(base, 'DELETE', txPath, { headers: auth });
    expect([del.status, errorOf(del).code, del.headers.get('allow')]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET, HEAD']);
    const none = await call(base, 'GET', '/api/v1/nothing-here');
    expect([none.status, errorOf(none).code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });

  it('checks each response against the document (500 for a broken one) unless validateResponses is false', async () => {
    const path = '/api/v1/public/partner/transactions/vendor/ORDER-1';
    internalErrors.length = 0;
    const broken = await call(base, 'GET', path, { headers: auth });
    expect([broken.status, errorOf(broken).code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(String(internalErrors[0])).toMatch(/totalAmount must be number/);
    const sent = await call<Tx>(baseUnchecked, 'GET', path, { headers: auth });
    expect([sent.status, sent.body.totalAmount]).toEqual([200, 'six hundred']);
  });

  it('hands a request on to the next route when authenticate returns PASS (a server of both variants)', async () => {
    const both = express();
    const seen: string[] = [];
    // Variant 1's router takes only the key of a Variant 1 merchant; Variant 2's answers the others.
    both.use(
      createContractRouter({
        variant: 1,
        handlers: { getPartnerTransaction: () => ({ status: 200, body: TX }) },
        authenticate: (req, op) => (seen.push(`v1 ${op.operationId}`), req.get(op.auth!.header) === 'v1' ? { id: 'm1' } : PASS),
      }),
    );
    both.use(
      createContractRouter({
        variant: 2,
        handlers: {
          getPartnerTransaction: ({ params }) => ({
            status: 404,
            body: { error: { code: 'TRANSACTION_NOT_FOUND', message: `v2 has no ${params.transactionId}` } },
          }),
        },
        authenticate: (_req, op) => (seen.push(`v2 ${op.operationId}`), { id: 'm2' }),
      }),
    );
    both.use(routeNotFound);
    const s = await listen(both);
    try {
      const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      const one = await call(url, 'GET', txPath, { headers: { 'X-Api-Key': 'v1' } });
      expect([one.status, seen]).toEqual([200, ['v1 getPartnerTransaction']]);
      seen.length = 0;
      const two = await call(url, 'GET', txPath, { headers: { 'X-Api-Key': 'v2' } });
      expect([two.status, errorOf(two).message, seen]).toEqual([
        404,
        `v2 has no ${TX.id}`,
        ['v1 getPartnerTransaction', 'v2 getPartnerTransaction'],
      ]);
      // An operation only Variant 1 has, passed on: no route of Variant 2, the JSON 404 (not Variant 1's response check).
      const only1 = await call(url, 'GET', `/api/v1/public/transactions/${TX.id}`, { headers: { 'X-API-Key': 'v2' } });
      expect([only1.status, errorOf(only1).code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    } finally {
      await new Promise((r) => s.close(r));
    }
  });

  it('refuses a handler for an operation the variant does not have', () => {
    expect(() =>
      createContractRouter({ variant: 2, handlers: { verifyTransaction: () => ({ status: 500 }) } as never, authenticate }),
    ).toThrow(/verifyTransaction is not an operation of Variant 2/);
  });
});
