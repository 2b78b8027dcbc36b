/** The injected faults: each mutant breaks exactly one rule of the contract. */
import { randomUUID } from 'node:crypto';
import { objectAt, type Json } from '../../lib/json.ts';
import { A1, A2, B1, B2, B3, B4, code, fabricate, key, now, otherKey } from './match.ts';
import { boundsMutants } from './catalog-bounds.ts';
import { instantMutants } from './catalog-instants.ts';
import { moreMutants } from './catalog-more.ts';
import { retryMutants } from './catalog-retries.ts';
import { round4Mutants } from './catalog-round4.ts';
import { simulateMutants } from './catalog-simulate.ts';
import { valueMutants } from './catalog-values.ts';
import { webhookMutants } from './catalog-webhooks.ts';
import { json, sign, withJson, type Mutant, type ProxyResponse } from './proxy.ts';
import { Contract } from '../../judge/contract.ts';

const base: Mutant[] = [
  {
    name: 'cancel allowed from APPROVED',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const m = B4.exec(req.path);
      if (!m || code(res) !== 'TRANSACTION_NOT_PENDING') return res;
      const cur = await ctx.forward({
        method: 'GET',
        path: `/api/v1/public/partner/transactions/vendor/${m[1]}`,
        headers: req.headers,
        body: '',
      });
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
      const body = JSON.parse(req.body) as Json;
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
      return withJson(res, fabricate(JSON.parse(req.body) as Json), 201);
    },
  },
  {
    name: 'amount range not checked',
    profile: 'core',
    async onResponse(req, res) {
      if (!B1.test(req.path) || code(res) !== 'AMOUNT_OUT_OF_RANGE') return res;
      return withJson(res, fabricate(JSON.parse(req.body) as Json), 201);
    },
  },
  {
    name: 'rate limit off',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!A1.test(req.path) || res.status !== 429) return res;
      const r = withJson(
        res,
        req.headers['x-api-version'] === '2'
          ? {}
          : { token: `st_test_${randomUUID().replace(/-/g, '')}`, expiresAt: new Date(Date.now() + 3600e3).toISOString() },
        200,
      );
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
      return withJson(res, { error: { ...objectAt(b, 'error'), code: 'VALIDATION_ERROR' } });
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
      const cur = await ctx.forward({
        method: 'GET',
        path: `/api/v1/public/partner/transactions/vendor/${m[1]}`,
        headers: req.headers,
        body: '',
      });
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
      const body = JSON.stringify({
        event: 'transaction.approved',
        timestamp: new Date().toISOString(),
        data: {
          id: rec.id,
          vendorReference: rec.vendorReference,
          orderReference: rec.orderReference,
          status: 'APPROVED',
          amount: rec.totalAmount,
          currency: rec.currency,
          customerPhone: rec.customerPhone,
          merchantName: rec.merchantName,
          storeName: rec.storeName,
          createdAt: rec.createdAt,
          approvedAt: new Date().toISOString(),
        },
      });
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
      return withJson(res, { error: { ...objectAt(b, 'error'), message: 'Transaction belongs to another merchant' } });
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
    name: 'cancel by transaction id offered',
    profile: 'core',
    async onRequest(req, ctx) {
      const m = /^\/api\/v1\/public\/partner\/transactions\/([0-9a-f-]{36})\/cancel$/.exec(req.path);
      if (!m || (req.method !== 'PUT' && req.method !== 'POST')) return undefined;
      const cur = await ctx.forward({ method: 'GET', path: `/api/v1/public/partner/transactions/${m[1]}`, headers: req.headers, body: '' });
      if (cur.status !== 200) return undefined;
      const rec = json(cur);
      if (typeof rec.vendorReference === 'string' && rec.vendorReference)
        return ctx.forward({
          method: 'PUT',
          path: `/api/v1/public/partner/transactions/vendor/${encodeURIComponent(rec.vendorReference)}/cancel`,
          headers: req.headers,
          body: '',
        });
      return withJson(cur, { ...rec, status: 'CANCELED', updatedAt: now() }, 200);
    },
  },
  {
    name: 'confirmation SMS not sent',
    profile: 'sandbox',
    onResponse(req, res) {
      if (!/^\/api\/v1\/sandbox\/sms(\?|$)/.test(req.path) || res.status !== 200) return Promise.resolve(res);
      return Promise.resolve(withJson(res, { ...json(res), data: [] }));
    },
  },
  {
    name: 'A2 dates in UTC+1, not UTC',
    profile: 'sandbox',
    onResponse(req, res) {
      if (!A2.test(req.path) || res.status !== 200) return Promise.resolve(res);
      const rec = json(res) as { created_at: string; updated_at: string };
      const shift = (d: string): string => {
        const m = /^(\d{2})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(d);
        if (!m) return d;
        const t = new Date(
          Date.UTC(2000 + Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])) + 3600e3,
        );
        const p = (n: number) => String(n).padStart(2, '0');
        return `${p(t.getUTCDate())}/${p(t.getUTCMonth() + 1)}/${p(t.getUTCFullYear() % 100)} ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}`;
      };
      return Promise.resolve(withJson(res, { ...rec, created_at: shift(rec.created_at), updated_at: shift(rec.updated_at) }));
    },
  },
  {
    name: 'categoryId past 2^53 accepted (echoed in exponent form)',
    profile: 'core',
    async onRequest(req, ctx) {
      const m = /"categoryId":(\d{16,}|\d+(?:\.\d+)?e\+?\d+)/i.exec(req.body);
      if (!B1.test(req.path) || req.method !== 'POST' || !m) return undefined;
      const res = await ctx.forward({ ...req, body: req.body.replace(m[0], '"categoryId":1') });
      return res.status === 201
        ? { ...res, body: res.body.replace('"categoryId":1', `"categoryId":${Number(m[1]).toExponential()}`) }
        : res;
    },
  },
  {
    name: 'JSON member named twice accepted (the last one wins)',
    profile: 'core',
    async onRequest(req, ctx) {
      if (!B1.test(req.path) || req.method !== 'POST' || req.body.split('"vendorReference"').length < 3) return undefined;
      return ctx.forward({ ...req, body: JSON.stringify(JSON.parse(req.body)) });
    },
  },
  {
    name: 'HEAD not served (404)',
    profile: 'core',
    onRequest(req) {
      if (req.method !== 'HEAD') return Promise.resolve(undefined);
      return Promise.resolve({
        status: 404,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ error: { code: 'ROUTE_NOT_FOUND', message: `No operation HEAD ${req.path}` } }),
      });
    },
  },
  {
    name: 'method a path does not serve answered 404 without Allow',
    profile: 'core',
    onResponse(_req, res) {
      if (res.status !== 405) return Promise.resolve(res);
      const r = withJson(res, { error: { code: 'ROUTE_NOT_FOUND', message: 'No operation' } }, 404);
      delete r.headers.allow;
      return Promise.resolve(r);
    },
  },
  {
    name: 'service probes ask for a key',
    profile: 'core',
    onRequest(req) {
      if (!/^\/(healthz|readyz)(\?|$)/.test(req.path) || key(req)) return Promise.resolve(undefined);
      return Promise.resolve({
        status: 401,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ error: { code: 'INVALID_API_KEY', message: 'Missing API key' } }),
      });
    },
  },
  {
    name: 'sandbox reset answers 200 but resets nothing',
    profile: 'sandbox',
    onRequest(req) {
      if (req.method !== 'POST' || !/^\/api\/v1\/sandbox\/reset$/.test(req.path)) return Promise.resolve(undefined);
      return Promise.resolve({
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ now: now(), offsetSeconds: 0, deleted: { transactions: 0, sessions: 0, sms: 0, deliveries: 0 } }),
      });
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
    name: 'sandbox records each confirmation SMS twice',
    profile: 'sandbox',
    onResponse(req, res) {
      if (!req.path.startsWith('/api/v1/sandbox/sms') || res.status !== 200) return Promise.resolve(res);
      const b = json(res) as Json & { data: Json[] };
      return Promise.resolve(withJson(res, { ...b, data: b.data.flatMap((s) => [s, { ...s, id: randomUUID() }]) }));
    },
  },
  {
    name: "B4 404 body differs for another merchant's transaction",
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B4.test(req.path) || res.status !== 404) return res;
      // read-only ownership probe: does the other key see this vendorReference?
      const alt = await ctx.forward({
        method: 'GET',
        path: req.path.replace(/\/cancel$/, ''),
        headers: { ...req.headers, 'x-api-key': otherKey(req, ctx) },
        body: '',
      });
      if (alt.status !== 200) return res;
      return withJson(res, { error: { ...(json(res).error as object), message: 'This transaction belongs to another merchant' } });
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
  ...webhookMutants,
  {
    // ADR-057: a server that answers the last failing member's code, not x-error-precedence's first
    name: "A1 with several failing members answers the last member's code (error precedence ignored)",
    profile: 'core',
    async onResponse(req, res) {
      if (!A1.test(req.path) || res.status !== 400) return res;
      const err = json(res).error as Json;
      const details = err.details as Array<{ path: string; message: string }> | undefined;
      if (!details || details.length < 2) return res;
      const last = details[details.length - 1]!;
      const member = last.path.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
      const lastCode = A1_CONTRACT.errorCodeOf('createSession', member);
      if (lastCode === err.code) return res;
      const message = `${last.path.replace(/^\//, '').replace(/\//g, '.')} ${last.message}`;
      return withJson(res, { error: { ...err, code: lastCode, message, details: [last, ...details.slice(0, -1)] } });
    },
  },
];

/** The request schemas of A1 (the member codes are the same in both variants). */
const A1_CONTRACT = new Contract(1);

/**
 * The whole catalogue: the faults above (the webhook senders' among them, `catalog-webhooks.ts`), then the time, read, sandbox and relay faults of
 * `catalog-more.ts`, the retry schedule's (`catalog-retries.ts`), the request schemas' boundaries
 * (`catalog-bounds.ts`), failures on demand (`catalog-simulate.ts`), values (`catalog-values.ts`),
 * expiry instants and the sandbox lists' paging (`catalog-instants.ts`), and issue 42's repeated
 * values, last-change instants, one-status refusals and cross-merchant keys (`catalog-round4.ts`).
 */
export const mutants: Mutant[] = [
  ...base,
  ...moreMutants,
  ...retryMutants,
  ...boundsMutants,
  ...simulateMutants,
  ...valueMutants,
  ...instantMutants,
  ...round4Mutants,
];
