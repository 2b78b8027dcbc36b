/** The injected faults: each mutant breaks exactly one rule of the contract. */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { json, sign, withJson, type Mutant, type ProxyRequest, type ProxyResponse, type ProxyContext } from './proxy.ts';

const B1 = /^\/api\/v1\/public\/partner\/transactions$/;
const B2 = /^\/api\/v1\/public\/partner\/transactions\/([0-9a-f-]{36})$/;
const B3 = /^\/api\/v1\/public\/partner\/transactions\/vendor\/([^/]+)$/;
const B4 = /^\/api\/v1\/public\/partner\/transactions\/vendor\/([^/]+)\/cancel$/;
const A1 = /^\/api\/v1\/public\/sessions$/;
const A2 = /^\/api\/v1\/public\/transactions\/([0-9a-f-]{36})\/status$/;
const code = (res: ProxyResponse): string | undefined => {
  try {
    return json(res).error?.code;
  } catch {
    return undefined;
  }
};
const key = (req: ProxyRequest): string => req.headers['x-api-key'] ?? req.headers['x-service-key'] ?? '';
const otherKey = (req: ProxyRequest, ctx: ProxyContext): string => (key(req) === ctx.keys.main ? ctx.keys.other : ctx.keys.main);
const now = (): string => new Date().toISOString();

function fabricate(body: Record<string, any>): Record<string, any> {
  return {
    id: randomUUID(), orderReference: `ORD-${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`, vendorReference: body.vendorReference ?? null,
    status: 'PENDING', totalAmount: body.total, currency: body.currency, customerPhone: body.customerPhone, merchantName: 'Merchant', storeName: 'Store',
    items: (body.items as Record<string, any>[]).map((it) => ({ id: randomUUID(), name: it.name, reference: it.reference ?? null, quantity: it.quantity, unitPrice: it.unitPrice, categoryId: it.categoryId ?? null })),
    createdAt: now(), updatedAt: null,
  };
}

export const mutants: Mutant[] = [
  {
    name: 'cancel allowed from APPROVED',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const m = B4.exec(req.path);
      if (!m || code(res) !== 'TRANSACTION_NOT_PENDING') return res;
      const cur = await ctx.forward({ method: 'GET', path: `/api/v1/public/partner/transactions/vendor/${m[1]}`, headers: req.headers, body: '' });
      const rec = json(cur);
      return rec.status === 'APPROVED' ? withJson(res, { ...rec, status: 'CANCELED', updatedAt: now() }, 200) : res;
    },
  },
  {
    name: "other merchant's transaction readable",
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B2.test(req.path) || res.status !== 404) return res;
      const alt = await ctx.forward({ ...req, headers: { ...req.headers, 'x-api-key': otherKey(req, ctx) } });
      return alt.status === 200 ? alt : res;
    },
  },
  {
    name: 'duplicate vendorReference accepted',
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B1.test(req.path) || res.status !== 409) return res;
      const body = JSON.parse(req.body);
      const ref = body.vendorReference;
      delete body.vendorReference;
      const again = await ctx.forward({ ...req, body: JSON.stringify(body) });
      return again.status === 201 ? withJson(again, { ...json(again), vendorReference: ref }) : res;
    },
  },
  {
    name: 'AMOUNT_MISMATCH not checked',
    profile: 'core',
    async onResponse(req, res) {
      if (!B1.test(req.path) || code(res) !== 'AMOUNT_MISMATCH') return res;
      return withJson(res, fabricate(JSON.parse(req.body)), 201);
    },
  },
  {
    name: 'amount range not checked',
    profile: 'core',
    async onResponse(req, res) {
      if (!B1.test(req.path) || code(res) !== 'AMOUNT_OUT_OF_RANGE') return res;
      return withJson(res, fabricate(JSON.parse(req.body)), 201);
    },
  },
  {
    name: 'rate limit off',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!A1.test(req.path) || res.status !== 429) return res;
      const r = withJson(res, req.headers['x-api-version'] === '2' ? {} : { token: `st_test_${randomUUID().replace(/-/g, '')}`, expiresAt: new Date(Date.now() + 3600e3).toISOString() }, 200);
      delete r.headers['retry-after'];
      return r;
    },
  },
  {
    name: 'expired session token accepted',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const m = A2.exec(req.path);
      if (!m) return res;
      const k = `${m[1]} ${req.headers['x-session-token']}`;
      if (res.status === 200) ctx.cache.set(k, res);
      else if (code(res) === 'INVALID_SESSION_TOKEN' && ctx.cache.has(k)) return ctx.cache.get(k) as ProxyResponse;
      return res;
    },
  },
  {
    name: "another session's token accepted",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const m = A2.exec(req.path);
      if (!m) return res;
      if (res.status === 200) ctx.cache.set(m[1]!, { res, token: req.headers['x-session-token'] });
      else if (code(res) === 'INVALID_SESSION_TOKEN') {
        const c = ctx.cache.get(m[1]!) as { res: ProxyResponse; token: string } | undefined;
        if (c && c.token !== req.headers['x-session-token'] && !String(req.headers['x-session-token']).endsWith('x')) return c.res;
      }
      return res;
    },
  },
  {
    name: 'wrong error code (AMOUNT_MISMATCH answered as VALIDATION_ERROR)',
    profile: 'core',
    async onResponse(req, res) {
      if (!B1.test(req.path) || code(res) !== 'AMOUNT_MISMATCH') return res;
      const b = json(res);
      return withJson(res, { error: { ...b.error, code: 'VALIDATION_ERROR' } });
    },
  },
  {
    name: '200 instead of 201 on create',
    profile: 'core',
    async onResponse(req, res) {
      return B1.test(req.path) && res.status === 201 ? { ...res, status: 200 } : res;
    },
  },
  {
    name: 'updatedAt set at creation',
    profile: 'core',
    async onResponse(req, res) {
      if (!B1.test(req.path) || res.status !== 201) return res;
      const rec = json(res);
      return withJson(res, { ...rec, updatedAt: rec.createdAt });
    },
  },
  {
    name: 'expiry never happens',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!(B2.test(req.path) || B3.test(req.path)) || res.status !== 200) return res;
      const rec = json(res);
      return rec.status === 'EXPIRED' ? withJson(res, { ...rec, status: 'PENDING', updatedAt: null }) : res;
    },
    async onWebhook(body, headers) {
      return body.includes('"transaction.expired"') ? null : { body, headers };
    },
  },
  {
    name: 'cancel answers 200 but does not store',
    profile: 'core',
    async onRequest(req, ctx) {
      const m = B4.exec(req.path);
      if (!m || req.method !== 'PUT') return undefined;
      const cur = await ctx.forward({ method: 'GET', path: `/api/v1/public/partner/transactions/vendor/${m[1]}`, headers: req.headers, body: '' });
      if (cur.status !== 200 || json(cur).status !== 'PENDING') return undefined;
      return withJson(cur, { ...json(cur), status: 'CANCELED', updatedAt: now() }, 200);
    },
  },
  {
    name: 'missing webhook (transaction.cancelled dropped)',
    profile: 'sandbox',
    async onWebhook(body, headers) {
      return body.includes('"transaction.cancelled"') ? null : { body, headers };
    },
  },
  {
    name: 'unsigned webhook',
    profile: 'sandbox',
    async onWebhook(body, headers) {
      const h = { ...headers };
      delete h['webhook-signature'];
      return { body, headers: h };
    },
  },
  {
    name: 'extra webhook (approved sent on create)',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (!B1.test(req.path) || res.status !== 201 || key(req) !== ctx.keys.main) return res;
      const rec = json(res);
      const body = JSON.stringify({ event: 'transaction.approved', timestamp: new Date().toISOString(), data: { id: rec.id, vendorReference: rec.vendorReference, orderReference: rec.orderReference, status: 'APPROVED', amount: rec.totalAmount, currency: rec.currency, customerPhone: rec.customerPhone, merchantName: rec.merchantName, storeName: rec.storeName, createdAt: rec.createdAt, approvedAt: new Date().toISOString() } });
      await ctx.sendWebhook(body, sign(ctx.secret, body));
      return res;
    },
  },
  {
    name: "404 body differs for another merchant's transaction",
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B2.test(req.path) || res.status !== 404) return res;
      const alt = await ctx.forward({ ...req, headers: { ...req.headers, 'x-api-key': otherKey(req, ctx) } });
      if (alt.status !== 200) return res;
      const b = json(res);
      return withJson(res, { error: { ...b.error, message: 'Transaction belongs to another merchant' } });
    },
  },
  {
    name: 'totalAmount served as a string',
    profile: 'core',
    async onResponse(req, res) {
      if (!B2.test(req.path) || res.status !== 200) return res;
      const rec = json(res);
      return withJson(res, { ...rec, totalAmount: String(rec.totalAmount) });
    },
  },
  {
    name: '404 answered with code NOT_FOUND',
    profile: 'core',
    onResponse(_req, res) {
      if (code(res) !== 'TRANSACTION_NOT_FOUND') return Promise.resolve(res);
      return Promise.resolve(withJson(res, { error: { ...(json(res).error as object), code: 'NOT_FOUND' } }));
    },
  },
  {
    name: '404 answered in another error shape',
    profile: 'core',
    onResponse(_req, res) {
      if (code(res) !== 'TRANSACTION_NOT_FOUND') return Promise.resolve(res);
      return Promise.resolve(withJson(res, { status: 404, title: 'Not Found', detail: (json(res).error as { message?: string }).message }));
    },
  },
  {
    name: 'A2 created_at month first (MM/DD/YY)',
    profile: 'sandbox',
    onResponse(req, res) {
      if (!A2.test(req.path) || res.status !== 200) return Promise.resolve(res);
      const rec = json(res) as { created_at: string };
      const [dd, mm, rest] = rec.created_at.split('/') as [string, string, string];
      // on days 1–12 the swapped value still matches the pattern: only comparing dates finds it
      return Promise.resolve(withJson(res, { ...rec, created_at: `${mm}/${dd}/${rest}` }));
    },
  },
  {
    name: 'sandbox records no SMS',
    profile: 'sandbox',
    onResponse(req, res) {
      if (!req.path.startsWith('/api/v1/sandbox/sms') || res.status !== 200) return Promise.resolve(res);
      return Promise.resolve(withJson(res, { data: [] }));
    },
  },
  {
    name: "B4 404 body differs for another merchant's transaction",
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B4.test(req.path) || res.status !== 404) return res;
      // read-only ownership probe: does the other key see this vendorReference?
      const alt = await ctx.forward({ method: 'GET', path: req.path.replace(/\/cancel$/, ''), headers: { ...req.headers, 'x-api-key': otherKey(req, ctx) }, body: '' });
      if (alt.status !== 200) return res;
      return withJson(res, { error: { ...(json(res).error as object), message: 'This transaction belongs to another merchant' } });
    },
  },
  {
    name: 'webhook data.amount in centimes (re-signed)',
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { data: { amount: number } };
      const changed = JSON.stringify({ ...p, data: { ...p.data, amount: Math.round(p.data.amount * 100) } });
      return Promise.resolve({ body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } });
    },
  },
  {
    name: 'B2/B3 show PENDING after the payment window',
    profile: 'sandbox',
    onResponse(req, res) {
      if (!(B2.test(req.path) || B3.test(req.path)) || req.method !== 'GET' || res.status !== 200) return Promise.resolve(res);
      const rec = json(res) as { status: string };
      return Promise.resolve(rec.status === 'EXPIRED' ? withJson(res, { ...rec, status: 'PENDING', updatedAt: null }) : res);
    },
  },
  {
    name: 'webhook duplicated under a new webhook-id',
    profile: 'sandbox',
    async onWebhook(body, headers, ctx) {
      await ctx.sendWebhook(body, sign(ctx.secret, body));
      return { body, headers };
    },
  },
  {
    name: 'webhook with a stale timestamp (10 min old, re-signed)',
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const id = headers['webhook-id'] ?? `msg_${randomUUID().replace(/-/g, '')}`;
      const ts = new Date(Date.now() - 600_000);
      return Promise.resolve({ body, headers: { ...headers, 'webhook-id': id, 'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)), 'webhook-signature': new Webhook(ctx.secret).sign(id, ts, body) } });
    },
  },
  {
    name: 'webhook signed with a wrong secret',
    profile: 'sandbox',
    onWebhook(body, headers) {
      return Promise.resolve({ body, headers: { ...headers, ...sign(`whsec_${Buffer.from(randomUUID()).toString('base64')}`, body) } });
    },
  },
  {
    name: 'webhook body tampered after signing',
    profile: 'sandbox',
    onWebhook(body, headers) {
      const p = JSON.parse(body) as { data: Record<string, unknown> };
      return Promise.resolve({ body: JSON.stringify({ ...p, data: { ...p.data, storeName: `${String(p.data.storeName)} ` } }), headers });
    },
  },
  {
    name: 'webhook storeName changed (re-signed)',
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { data: Record<string, unknown> };
      const changed = JSON.stringify({ ...p, data: { ...p.data, storeName: 'Another store' } });
      return Promise.resolve({ body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } });
    },
  },
  {
    name: 'unsolicited webhook (approved sent after a cancel)',
    profile: 'sandbox',
    async onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { event: string; data: Record<string, unknown> };
      if (p.event === 'transaction.cancelled') {
        const forged = JSON.stringify({ ...p, event: 'transaction.approved', data: { ...p.data, status: 'APPROVED', approvedAt: new Date().toISOString() } });
        await ctx.sendWebhook(forged, sign(ctx.secret, forged));
      }
      return { body, headers };
    },
  },
];
