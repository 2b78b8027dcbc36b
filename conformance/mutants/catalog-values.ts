/**
 * Injected faults of round 3's classes, each a bug a real implementation of the seed ships:
 * - lenient types: a value of the wrong JSON type coerced instead of refused (the probes now carry
 *   an in-range value, so only the type is wrong);
 * - normalised values: a phone with `+`, spaces, dashes or in national form accepted, a
 *   vendorReference found, cancelled or refused whatever its letter case, or refused because
 *   another merchant used it (ADR-049);
 * - lengths counted in bytes or UTF-16 units instead of characters;
 * - values that disagree with what was created or observed: a read-back phone in national form,
 *   a shifted createdAt, a webhook's merchantName.
 * Each rewrites a request before the correct server sees it (so the server's own answer, with its
 * exact error body, is what the suite gets) or an answer after it.
 */
import { Contract } from '../../judge/contract.ts';
import { isJson, type Json } from '../../lib/json.ts';
import { B1, B2, B3, B4, A1, GET, key } from './match.ts';

const HOUR_MS = 3_600_000;

/** The sandbox transactions list (ADR-028). */
const LIST = /^\/api\/v1\/sandbox\/transactions(\?.*)?$/;

/** A page of the sandbox transactions list rewritten by `f` (its data, whether a cursor asked for it). */
function onListPage(f: (data: Json[], cursor: boolean, ctx: ProxyContext) => Json[]): Mutant['onResponse'] {
  return async (req, res, ctx) => {
    if (!LIST.test(req.path) || !GET(req) || res.status !== 200) return res;
    const page = json(res) as { data: Json[]; nextCursor: unknown };
    return withJson(res, { ...page, data: f(page.data, /[?&]cursor=/.test(req.path), ctx) });
  };
}

/** An ISO instant moved by `ms`. */
const shifted = (v: unknown, ms: number): unknown => (typeof v === 'string' ? new Date(Date.parse(v) + ms).toISOString() : v);

/** A webhook payload rewritten by `f` and signed again with the endpoint's secret (the relay's own webhook-id). */
function resigned(f: (data: Json, ctx: ProxyContext) => Promise<Json | undefined>): Mutant['onWebhook'] {
  return async (body, headers, ctx) => {
    const p = JSON.parse(body) as { event: string; data: Json };
    const data = await f(p.data, ctx);
    if (!data) return { body, headers };
    const changed = JSON.stringify({ ...p, data });
    return { body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } };
  };
}

import { json, sign, withJson, type Mutant, type ProxyContext, type ProxyRequest, type ProxyResponse } from './proxy.ts';

const NAME_MAX = new Contract(1).schema('ItemName').maxLength as number;

/** A B1/A1 request with its JSON body rewritten by `f` (undefined: unchanged). */
function rewriteBody(paths: RegExp[], f: (body: Json) => Json | undefined): Mutant['onRequest'] {
  return async (req, ctx) => {
    if (req.method !== 'POST' || !paths.some((p) => p.test(req.path))) return undefined;
    const body = bodyOf(req);
    if (!body) return undefined;
    const changed = f(body);
    return changed ? ctx.forward({ ...req, body: JSON.stringify(changed) }) : undefined;
  };
}

/** A request's JSON body as an object, or undefined. */
function bodyOf(req: ProxyRequest): Json | undefined {
  try {
    const b: unknown = JSON.parse(req.body);
    return isJson(b) ? b : undefined;
  } catch {
    return undefined;
  }
}

const numeric = (v: unknown): v is string => typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v);

/** The request's headers with its merchant key (in whichever header the operation takes it) replaced by `k`. */
function withKey(req: ProxyRequest, k: string): Record<string, string> {
  const h = { ...req.headers };
  for (const name of ['x-api-key', 'x-service-key']) if (name in h) h[name] = k;
  return h;
}

/** A phone "cleaned" the way a lenient server does it. */
function phoneRewrite(f: (phone: string) => string): Mutant['onRequest'] {
  return rewriteBody([B1], (b) => {
    if (typeof b.customerPhone !== 'string') return undefined;
    const p = f(b.customerPhone);
    return p === b.customerPhone ? undefined : { ...b, customerPhone: p };
  });
}

/** The vendorReferences each key created (from B1's 201 answers), lower-cased → as written. */
function refs(ctx: ProxyContext, k: string): Map<string, string> {
  let m = ctx.cache.get(`refs ${k}`) as Map<string, string> | undefined;
  if (!m) ctx.cache.set(`refs ${k}`, (m = new Map()));
  return m;
}
function learnRef(req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext): void {
  if (B1.test(req.path) && res.status === 201) {
    const ref = json(res).vendorReference;
    if (typeof ref === 'string') refs(ctx, key(req)).set(ref.toLowerCase(), ref);
  }
}

/** B3 or B4 (`path`) finds a reference whatever its letter case: a 404 is asked again with the case the key created. */
function caseFolded(path: RegExp, method: string): Mutant['onResponse'] {
  return async (req, res, ctx) => {
    learnRef(req, res, ctx);
    const m = path.exec(req.path);
    if (!m || req.method !== method || res.status !== 404) return res;
    const asked = decodeURIComponent(m[1]!);
    const known = refs(ctx, key(req)).get(asked.toLowerCase());
    if (!known || known === asked) return res;
    return ctx.forward({ ...req, path: req.path.replace(m[1]!, encodeURIComponent(known)) });
  };
}

/** Items of a B1/A1 body whose `name` is over the limit when counted by `size`: sent one character over it (the server refuses). */
function nameCountedBy(size: (s: string) => number): Mutant['onRequest'] {
  return rewriteBody([B1, A1], (b) => {
    const items = b.items;
    if (!Array.isArray(items) || !items.some((it) => isJson(it) && typeof it.name === 'string' && size(it.name) > NAME_MAX))
      return undefined;
    return {
      ...b,
      items: (items as unknown[]).map((it): unknown =>
        isJson(it) && typeof it.name === 'string' && size(it.name) > NAME_MAX ? { ...it, name: 'n'.repeat(NAME_MAX + 1) } : it,
      ),
    };
  });
}

export const valueMutants: Mutant[] = [
  // ---- lenient types (the wrong-type probes carry an in-range value) ----
  {
    name: 'total accepted as a JSON string (coerced to a number)',
    profile: 'core',
    onRequest: rewriteBody([B1, A1], (b) => (numeric(b.total) ? { ...b, total: Number(b.total) } : undefined)),
  },
  {
    name: 'item quantity accepted as a JSON string (coerced to an integer)',
    profile: 'core',
    onRequest: rewriteBody([B1], (b) =>
      Array.isArray(b.items) && b.items.some((it) => isJson(it) && numeric(it.quantity))
        ? {
            ...b,
            items: (b.items as unknown[]).map((it): unknown =>
              isJson(it) && numeric(it.quantity) ? { ...it, quantity: Number(it.quantity) } : it,
            ),
          }
        : undefined,
    ),
  },
  // ---- phones normalised instead of refused (ADR-049) ----
  { name: 'phone with a plus sign accepted (the + stripped)', profile: 'core', onRequest: phoneRewrite((p) => p.replace(/^\+/, '')) },
  {
    name: 'phone with spaces or dashes accepted (separators removed)',
    profile: 'core',
    onRequest: phoneRewrite((p) => p.replace(/[ -]/g, '')),
  },
  { name: 'phone in national form accepted (0 read as 212)', profile: 'core', onRequest: phoneRewrite((p) => p.replace(/^0/, '212')) },
  // ---- vendorReference letter case and scope (ADR-049) ----
  { name: 'B3 finds a vendorReference whatever its letter case', profile: 'core', onResponse: caseFolded(B3, 'GET') },
  { name: 'B4 cancels a vendorReference whatever its letter case', profile: 'core', onResponse: caseFolded(B4, 'PUT') },
  {
    name: 'vendorReference unique whatever its letter case (B1 refuses ORDER-1 after order-1)',
    profile: 'core',
    async onRequest(req, ctx) {
      if (!B1.test(req.path) || req.method !== 'POST') return undefined;
      const ref = bodyOf(req)?.vendorReference;
      const known = typeof ref === 'string' ? refs(ctx, key(req)).get(ref.toLowerCase()) : undefined;
      // asked again with the case the key created: the server's own 409
      return known && known !== ref ? ctx.forward({ ...req, body: JSON.stringify({ ...bodyOf(req), vendorReference: known }) }) : undefined;
    },
    async onResponse(req, res, ctx) {
      learnRef(req, res, ctx);
      return res;
    },
  },
  {
    name: 'vendorReference unique across merchants (B1 refuses one another merchant used)',
    profile: 'core',
    async onRequest(req, ctx) {
      if (!B1.test(req.path) || req.method !== 'POST') return undefined;
      const ref = bodyOf(req)?.vendorReference;
      if (typeof ref !== 'string') return undefined;
      const other = key(req) === ctx.keys.main ? ctx.keys.other : ctx.keys.main;
      // sent with the key that holds it: the server's own 409 for a reference in use
      return refs(ctx, other).get(ref.toLowerCase()) === ref ? ctx.forward({ ...req, headers: withKey(req, other) }) : undefined;
    },
    async onResponse(req, res, ctx) {
      learnRef(req, res, ctx);
      return res;
    },
  },
  // ---- lengths in the wrong unit ----
  { name: 'item name length counted in UTF-16 units', profile: 'core', onRequest: nameCountedBy((s) => s.length) },
  { name: 'item name length counted in UTF-8 bytes', profile: 'core', onRequest: nameCountedBy((s) => Buffer.byteLength(s)) },
  // ---- values that disagree with what was created ----
  {
    name: 'read-back phone in national form (B2/B3)',
    profile: 'core',
    async onResponse(req, res) {
      if (!(B2.test(req.path) || B3.test(req.path)) || !GET(req) || res.status !== 200) return res;
      const rec = json(res);
      return typeof rec.customerPhone === 'string' ? withJson(res, { ...rec, customerPhone: `0${rec.customerPhone.slice(3)}` }) : res;
    },
  },
  {
    name: "webhook's merchantName differs from the API's (the owner group's name)",
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { event: string; data: Json };
      if (typeof p.data?.merchantName !== 'string') return Promise.resolve({ body, headers });
      const changed = JSON.stringify({ ...p, data: { ...p.data, merchantName: `${p.data.merchantName} Group` } });
      return Promise.resolve({ body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } });
    },
  },
  // ---- timestamps that are not the instant of their event ----
  {
    name: 'createdAt one hour early everywhere (local time written as UTC)',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!(B1.test(req.path) || B2.test(req.path) || B3.test(req.path) || B4.test(req.path)) || res.status >= 300) return res;
      const rec = json(res);
      return withJson(res, { ...rec, createdAt: shifted(rec.createdAt, -HOUR_MS) });
    },
    onWebhook: resigned(async (data) => ({ ...data, createdAt: shifted(data.createdAt, -HOUR_MS) })),
  },
  {
    name: 'A1 expiresAt one second late',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!A1.test(req.path) || res.status !== 200) return res;
      const rec = json(res);
      return 'expiresAt' in rec ? withJson(res, { ...rec, expiresAt: shifted(rec.expiresAt, 1000) }) : res;
    },
  },
  {
    name: "B4's answer keeps the creation time as updatedAt (updatedAt not set on cancel)",
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!B4.test(req.path) || res.status !== 200) return res;
      const rec = json(res);
      return withJson(res, { ...rec, updatedAt: rec.createdAt });
    },
  },
  {
    name: 'reads show the time of the read as updatedAt after a change',
    profile: 'core',
    async onResponse(req, res) {
      if (!(B2.test(req.path) || B3.test(req.path)) || !GET(req) || res.status !== 200) return res;
      const rec = json(res);
      return rec.updatedAt === null ? res : withJson(res, { ...rec, updatedAt: new Date().toISOString() });
    },
  },
  // ---- names learned once, checked everywhere ----
  {
    name: "checkout transactions' webhooks name another store (storeName)",
    profile: 'sandbox',
    onWebhook: resigned(async (data, ctx) => {
      if (typeof data.storeName !== 'string' || typeof data.id !== 'string') return undefined;
      // a checkout transaction is not found by B2 (partner transactions only)
      const r = await ctx.forward({
        method: 'GET',
        path: `/api/v1/public/partner/transactions/${data.id}`,
        headers: { 'x-service-key': ctx.keys.main, 'x-api-key': ctx.keys.main },
        body: '',
      });
      return r.status === 404 ? { ...data, storeName: `${data.storeName} (online)` } : undefined;
    }),
  },
  // ---- the rate limit's key ----
  {
    name: 'A1 rate limit counted per client address instead of per key',
    profile: 'core',
    async onRequest(req, ctx) {
      if (!A1.test(req.path) || req.method !== 'POST') return undefined;
      // once a key is limited, every key of this address is, until that window ends
      const spent = ctx.cache.get('a1 spent') as { key: string; until: number } | undefined;
      if (!spent || spent.key === key(req) || Date.now() >= spent.until) return undefined;
      return ctx.forward({ ...req, headers: withKey(req, spent.key) });
    },
    async onResponse(req, res, ctx) {
      if (A1.test(req.path) && res.status === 429 && !ctx.cache.has('a1 spent'))
        ctx.cache.set('a1 spent', { key: key(req), until: Date.now() + Number(res.headers['retry-after'] ?? 1) * 1000 });
      return res;
    },
  },
  // ---- the sandbox list read through its cursors (ADR-028) ----
  {
    name: 'sandbox transactions list: every page after the first skips its first item',
    profile: 'sandbox',
    onResponse: onListPage((data, cursor) => (cursor ? data.slice(1) : data)),
  },
  {
    name: "sandbox transactions list: a page repeats the previous page's last item (an inclusive cursor)",
    profile: 'sandbox',
    onResponse: onListPage((data, cursor, ctx) => {
      const last = ctx.cache.get('list last') as Json | undefined;
      // the page as sent: it starts with the cursor's own item, and still holds `limit` items
      const page = cursor && last ? [last, ...data.slice(0, -1)] : data;
      if (page.length) ctx.cache.set('list last', page[page.length - 1]);
      return page;
    }),
  },
  {
    name: 'sandbox transactions list: each page oldest first',
    profile: 'sandbox',
    onResponse: onListPage((data) => [...data].reverse()),
  },
];
