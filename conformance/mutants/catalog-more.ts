/**
 * More injected faults, one rule each: time rules off by a minute (payment window, token lifetime,
 * rate-limit window, judged on the merchant's sandbox clock), reads that disagree with what was
 * created or with the expiry, 404 texts that leak ownership, the sandbox's SMS log and scenarios,
 * and webhook relay faults (re-signed with the merchant's secret, so only the content is wrong).
 * The retry schedule's faults are in `catalog-retries.ts`, the request schemas' boundaries in
 * `catalog-bounds.ts`.
 */
import { randomUUID } from 'node:crypto';
import { checkoutStatusOf, stateMachine, tokenLifetimeSeconds, variants } from '../../generated/index.ts';
import type { Json } from '../../lib/json.ts';
import { A1, A2, A3, B1, B2, B3, GET, code, fabricate, key, merchantKey, otherKey, sandboxNow } from './match.ts';
import { json, sign, withJson, type Mutant, type ProxyContext, type ProxyRequest, type ProxyResponse } from './proxy.ts';

const WINDOW_S = stateMachine.paymentWindow.defaultSeconds;
const RATE_WINDOW_S = variants.v1.rateLimits.createSession.windowSeconds;
const MINUTE_MS = 60_000;

/** A B2/B3 read of a record, rewritten by `f` when it answered 200. */
export function onRead(
  f: (rec: Json, req: ProxyRequest, ctx: ProxyContext) => Promise<Json | undefined> | Json | undefined,
): Mutant['onResponse'] {
  return async (req, res, ctx) => {
    if (!(B2.test(req.path) || B3.test(req.path)) || !GET(req) || res.status !== 200) return res;
    const changed = await f(json(res), req, ctx);
    return changed ? withJson(res, changed) : res;
  };
}

/** A webhook payload rewritten by `f` and re-signed with the merchant's secret (null: dropped). */
function resigned(f: (p: { event: string; data: Json }) => { event: string; data: Json } | null): Mutant['onWebhook'] {
  return (body, headers, ctx) => {
    const p = f(JSON.parse(body) as { event: string; data: Json });
    if (!p) return Promise.resolve(null);
    const changed = JSON.stringify(p);
    return Promise.resolve({ body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } });
  };
}

/** The 401 the server gives an unknown session token on this A2 path. */
async function invalidToken(req: ProxyRequest, ctx: ProxyContext): Promise<ProxyResponse> {
  return ctx.forward({ ...req, headers: { ...req.headers, 'x-session-token': `st_test_${randomUUID().replace(/-/g, '')}` } });
}

/** A2 refuses a session token once `shorterMs` before its lifetime ends, on the sandbox clock. */
export function tokenLifetimeShorter(name: string, shorterMs: number): Mutant {
  return {
    name,
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      await recordToken(req, res, ctx);
      if (!A2.test(req.path) || res.status !== 200) return res;
      const issued = ctx.cache.get(`issued ${req.headers['x-session-token'] ?? ''}`) as number | undefined;
      if (issued === undefined || (await sandboxNow(ctx)) - issued < tokenLifetimeSeconds * 1000 - shorterMs) return res;
      return invalidToken(req, ctx);
    },
  };
}

/** Sandbox time a session token was issued at (recorded on A1's answer). */
async function recordToken(req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext): Promise<void> {
  if (!A1.test(req.path) || res.status >= 300) return;
  const rec = json(res);
  const token = rec.token ?? rec.session_token;
  if (typeof token === 'string') ctx.cache.set(`issued ${token}`, await sandboxNow(ctx, key(req)));
}

/** When (sandbox ms) the current rate-limit window of a key ends, from its last 429. */
async function recordWindow(req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext): Promise<void> {
  if (!A1.test(req.path) || res.status !== 429) return;
  const wait = Number(res.headers['retry-after']);
  ctx.cache.set(`window ${key(req)}`, (await sandboxNow(ctx, key(req))) + wait * 1000);
  ctx.cache.set(`429 ${key(req)}`, res);
}

/**
 * A sandbox list at `pathname` that ignores its `transactionId` filter (answers the whole list),
 * while still refusing a malformed id: only what the list holds can show it.
 */
function transactionFilterIgnored(pathname: string): Mutant['onRequest'] {
  return async (req, ctx) => {
    const u = new URL(req.path, 'http://proxy');
    const id = u.searchParams.get('transactionId');
    if (u.pathname !== pathname || id === null || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
      return undefined;
    u.searchParams.delete('transactionId');
    return ctx.forward({ ...req, path: u.pathname + u.search });
  };
}

export const moreMutants: Mutant[] = [
  // ---- time rules off by a minute ----
  {
    name: 'payment window a minute longer (reads)',
    profile: 'sandbox',
    onResponse: onRead(async (rec, req, ctx) => {
      if (rec.status !== 'EXPIRED') return undefined;
      const age = (await sandboxNow(ctx, merchantKey(req, ctx))) - Date.parse(String(rec.createdAt));
      return age < WINDOW_S * 1000 + MINUTE_MS ? { ...rec, status: 'PENDING', updatedAt: null } : undefined;
    }),
  },
  {
    name: 'payment window a minute shorter (reads)',
    profile: 'sandbox',
    onResponse: onRead(async (rec, req, ctx) => {
      if (rec.status !== 'PENDING') return undefined;
      const t = await sandboxNow(ctx, merchantKey(req, ctx));
      return t - Date.parse(String(rec.createdAt)) >= WINDOW_S * 1000 - MINUTE_MS
        ? { ...rec, status: 'EXPIRED', updatedAt: new Date(t).toISOString() }
        : undefined;
    }),
  },
  {
    name: 'session token lifetime a minute longer',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      await recordToken(req, res, ctx);
      if (!A2.test(req.path)) return res;
      const token = req.headers['x-session-token'] ?? '';
      if (res.status === 200) ctx.cache.set(`last ${token}`, res);
      const issued = ctx.cache.get(`issued ${token}`) as number | undefined;
      const last = ctx.cache.get(`last ${token}`) as ProxyResponse | undefined;
      if (code(res) !== 'INVALID_SESSION_TOKEN' || issued === undefined || !last) return res;
      return (await sandboxNow(ctx)) - issued < tokenLifetimeSeconds * 1000 + MINUTE_MS ? last : res;
    },
  },
  tokenLifetimeShorter('session token lifetime a minute shorter', MINUTE_MS),
  {
    name: 'rate-limit window a minute longer',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      const end = ctx.cache.get(`window ${key(req)}`) as number | undefined;
      const last = ctx.cache.get(`429 ${key(req)}`) as ProxyResponse | undefined;
      if (!A1.test(req.path) || end === undefined || !last) return undefined;
      const t = await sandboxNow(ctx, key(req));
      if (t < end || t >= end + MINUTE_MS) return undefined;
      const wait = String(Math.ceil((end + MINUTE_MS - t) / 1000));
      const body = json(last) as { error: Json };
      const r = withJson(last, { error: { ...body.error, retry_after: Number(wait) } });
      return { ...r, headers: { ...r.headers, 'retry-after': wait, 'ratelimit-reset': wait, 'ratelimit-remaining': '0' } };
    },
    async onResponse(req, res, ctx) {
      await recordWindow(req, res, ctx);
      return res;
    },
  },
  {
    name: 'rate-limit window a minute shorter',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      const end = ctx.cache.get(`window ${key(req)}`) as number | undefined;
      if (!A1.test(req.path) || end === undefined) return undefined;
      const t = await sandboxNow(ctx, key(req));
      if (t < end - MINUTE_MS || t >= end) return undefined;
      // the server would still refuse: answer as a new window would (the first request counted)
      const limit = variants.v1.rateLimits.createSession.limit;
      return {
        status: 200,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'ratelimit-limit': String(limit),
          'ratelimit-remaining': String(limit - 1),
          'ratelimit-reset': String(RATE_WINDOW_S),
          'ratelimit-policy': `${limit};w=${RATE_WINDOW_S}`,
        },
        body: JSON.stringify(
          req.headers['x-api-version'] === '2'
            ? { session_token: `st_test_${randomUUID().replace(/-/g, '')}` }
            : { token: `st_test_${randomUUID().replace(/-/g, '')}`, expiresAt: new Date(t + tokenLifetimeSeconds * 1000).toISOString() },
        ),
      };
    },
    async onResponse(req, res, ctx) {
      await recordWindow(req, res, ctx);
      return res;
    },
  },
  // ---- reads: leaks, consistency with the creation and with the expiry ----
  {
    name: "B3 404 body differs for another merchant's transaction",
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B3.test(req.path) || !GET(req) || res.status !== 404) return res;
      const alt = await ctx.forward({ ...req, headers: { ...req.headers, 'x-api-key': otherKey(req, ctx) } });
      if (alt.status !== 200) return res;
      return withJson(res, { error: { ...(json(res).error as object), message: 'Not your transaction' } });
    },
  },
  {
    name: 'B2 read: totalAmount a centime more than created',
    profile: 'core',
    async onResponse(req, res) {
      if (!B2.test(req.path) || !GET(req) || res.status !== 200) return res;
      const rec = json(res);
      return withJson(res, { ...rec, totalAmount: Math.round(Number(rec.totalAmount) * 100 + 1) / 100 });
    },
  },
  {
    name: 'B3 read: customerPhone differs from the one created',
    profile: 'core',
    async onResponse(req, res) {
      if (!B3.test(req.path) || !GET(req) || res.status !== 200) return res;
      const rec = json(res);
      const p = String(rec.customerPhone);
      return withJson(res, { ...rec, customerPhone: p.slice(0, -1) + (p.endsWith('9') ? '8' : '9') });
    },
  },
  {
    name: "B2 read: first item's name differs from the one created",
    profile: 'core',
    async onResponse(req, res) {
      if (!B2.test(req.path) || !GET(req) || res.status !== 200) return res;
      const rec = json(res) as Json & { items: Json[] };
      return withJson(res, { ...rec, items: rec.items.map((it, i) => (i ? it : { ...it, name: `${String(it.name)}.` })) });
    },
  },
  {
    name: 'A2 reports a closed (expired or cancelled) transaction as PENDING',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!A2.test(req.path) || res.status !== 200) return res;
      const rec = json(res);
      return rec.status === checkoutStatusOf.EXPIRED ? withJson(res, { ...rec, status: checkoutStatusOf.PENDING }) : res;
    },
  },
  {
    name: 'A3 reports a closed (expired or cancelled) transaction as PENDING',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!A3.test(req.path) || !GET(req) || res.status !== 200) return res;
      const rec = json(res);
      return rec.status === checkoutStatusOf.EXPIRED ? withJson(res, { ...rec, status: checkoutStatusOf.PENDING }) : res;
    },
  },
  // ---- the sandbox: SMS log and scenarios ----
  {
    name: 'sandbox SMS sent to another phone',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!req.path.startsWith('/api/v1/sandbox/sms') || res.status !== 200) return res;
      const b = json(res) as Json & { data: Json[] };
      const other = (p: unknown): string => `${String(p).slice(0, -1)}${String(p).endsWith('9') ? '8' : '9'}`;
      return withJson(res, { ...b, data: b.data.map((s) => ({ ...s, to: other(s.to) })) });
    },
  },
  {
    name: 'sandbox SMS names no transaction of this merchant',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!req.path.startsWith('/api/v1/sandbox/sms') || res.status !== 200) return res;
      const b = json(res) as Json & { data: Json[] };
      return withJson(res, { ...b, data: b.data.map((s) => ({ ...s, transactionId: randomUUID() })) });
    },
  },
  {
    name: 'SMS outbox filter by transactionId ignored (every message listed)',
    profile: 'sandbox',
    onRequest: transactionFilterIgnored('/api/v1/sandbox/sms'),
  },
  {
    name: 'webhook deliveries filter by transactionId ignored (every event listed)',
    profile: 'sandbox',
    onRequest: transactionFilterIgnored('/api/v1/sandbox/webhook-deliveries'),
  },
  {
    name: 'sandbox magic total ignored (created instead of its 422)',
    profile: 'sandbox',
    async onResponse(req, res) {
      const c = code(res);
      if (!B1.test(req.path) || res.status !== 422 || c === 'AMOUNT_OUT_OF_RANGE' || c === 'AMOUNT_MISMATCH') return res;
      return withJson(res, fabricate(JSON.parse(req.body) as Json), 201);
    },
  },
  {
    name: 'sandbox magic phone ignored (the transaction stays PENDING)',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      if (!B1.test(req.path) || req.method !== 'POST') return undefined;
      let body: Json;
      try {
        body = JSON.parse(req.body) as Json;
      } catch {
        return undefined;
      }
      const phone = body.customerPhone;
      if (typeof phone !== 'string' || !/^2126000001\d\d$/.test(phone)) return undefined;
      // sent as an ordinary number; the answer shows the magic one
      const res = await ctx.forward({ ...req, body: JSON.stringify({ ...body, customerPhone: '212600000199' }) });
      return res.status === 201 ? withJson(res, { ...json(res), customerPhone: phone }) : res;
    },
  },
  // ---- webhook relay faults ----
  {
    name: 'missing webhook (transaction.expired dropped)',
    profile: 'sandbox',
    onWebhook: resigned((p) => (p.event === 'transaction.expired' ? null : p)),
  },
  {
    name: 'webhook event name changed (cancelled sent as expired, re-signed)',
    profile: 'sandbox',
    onWebhook: resigned((p) => (p.event === 'transaction.cancelled' ? { ...p, event: 'transaction.expired' } : p)),
  },
  {
    name: 'webhook data.createdAt an hour late (re-signed)',
    profile: 'sandbox',
    onWebhook: resigned((p) => ({
      ...p,
      data: { ...p.data, createdAt: new Date(Date.parse(String(p.data.createdAt)) + 3600e3).toISOString() },
    })),
  },
];
