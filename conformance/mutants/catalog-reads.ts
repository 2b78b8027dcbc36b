/**
 * Injected faults of the sandbox's own operations and of a write's reach, each a bug a real
 * implementation ships, each passing a suite that judges the sandbox less strictly than the API
 * or reads the other merchant only after its own lookups:
 * - scope: a reset, a fault rule, a webhook secret, an API log or a redelivery that reaches the
 *   other merchant's sandbox (a clock move that does is found without these checks: the other
 *   merchant's A1 window ends with it); a B4 cancel or a sandbox move whose storage update also
 *   touches the other merchant's transaction with the same vendorReference;
 * - counts: a reset's `deleted` off by one; a fault rule answering one call more than its `times`;
 * - what the next delivery or read uses: a secret set by PUT that does not sign the next delivery;
 *   a list whose filter is dropped from the second page on.
 */
import type { Json } from '../../lib/json.ts';
import { B1, B4, GET, key, now, otherKey } from './match.ts';
import { json, withJson, type Mutant, type ProxyContext, type ProxyRequest, type ProxyResponse } from './proxy.ts';

const RESET = /^\/api\/v1\/sandbox\/reset$/;
const LISTS = /^\/api\/v1\/sandbox\/(transactions|sms|webhook-deliveries)$/;
const MOVE = /^\/api\/v1\/sandbox\/transactions\/([0-9a-f-]{36})\/(confirm|cancel|complete)$/;
const ENDPOINT = /^\/api\/v1\/sandbox\/webhook-endpoint$/;
const FAULTS = /^\/api\/v1\/sandbox\/faults$/;
const REDELIVER = /^\/api\/v1\/sandbox\/webhook-deliveries\/[^/]+\/redeliver$/;
const API_LOG = /^\/api\/v1\/sandbox\/api-log$/;

/** `req` sent again as the other merchant (its key in whichever key header the request carries). */
function asOther(req: ProxyRequest, ctx: ProxyContext): ProxyRequest {
  const headers = { ...req.headers };
  for (const h of ['x-api-key', 'x-service-key']) if (h in headers) headers[h] = otherKey(req, ctx);
  return { ...req, headers };
}

/** After a successful `method` request to `path`, the same request made as the other merchant too. */
function alsoForOther(name: string, method: string, path: RegExp, onlyMain = false): Mutant {
  return {
    name,
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (req.method === method && path.test(req.path) && res.status < 300 && key(req) && (!onlyMain || key(req) === ctx.keys.main))
        await ctx.forward(asOther(req, ctx));
      return res;
    },
  };
}

/** The fault rule a mutant tracks: the calls it answered, and whether it answered one more. */
interface TrackedRule {
  failure: string;
  times: number;
  answered: number;
  last?: ProxyResponse;
  extra: boolean;
}

export const readsMutants: Mutant[] = [
  // ---- scope: a sandbox operation reaching the other merchant's sandbox ----
  alsoForOther("sandbox reset also resets the other merchant's sandbox (its clock, windows and, with deleteData, its data)", 'POST', RESET),
  alsoForOther("fault rule also set for the other merchant (the rule is the caller's)", 'PUT', FAULTS, true),
  {
    name: "webhook secret set by PUT also set on the other merchant's endpoint",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (req.method !== 'PUT' || !ENDPOINT.test(req.path) || res.status !== 200 || key(req) !== ctx.keys.main) return res;
      const secret = (JSON.parse(req.body || '{}') as Json).secret;
      if (typeof secret !== 'string') return res;
      const headers = { 'x-api-key': ctx.keys.other, 'content-type': 'application/json' };
      const theirs = json(await ctx.forward({ method: 'GET', path: req.path, headers, body: '' }));
      await ctx.forward({ method: 'PUT', path: req.path, headers, body: JSON.stringify({ url: theirs.url ?? null, secret }) });
      return res;
    },
  },
  {
    name: "redelivery of the other merchant's delivery accepted",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (req.method !== 'POST' || !REDELIVER.test(req.path) || res.status !== 404 || !key(req)) return res;
      const alt = await ctx.forward(asOther(req, ctx));
      return alt.status === 200 ? alt : res;
    },
  },
  {
    name: "API log also records the other merchant's calls while the merchant records",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const path = req.path.split('?')[0]!;
      if (API_LOG.test(path) && key(req) === ctx.keys.main && res.status === 200) {
        if (req.method === 'PUT') {
          ctx.cache.set('recording', json(res).recording === true);
          ctx.cache.set('theirs', []);
        } else if (GET(req)) {
          const theirs = (ctx.cache.get('theirs') as Json[] | undefined) ?? [];
          if (theirs.length) return withJson(res, { ...json(res), entries: [...(json(res).entries as Json[]), ...theirs] });
        }
        return res;
      }
      if (ctx.cache.get('recording') === true && key(req) === ctx.keys.other)
        (ctx.cache.get('theirs') as Json[]).push({
          at: now(),
          operationId: null,
          method: req.method,
          path,
          status: res.status,
          credential: 'apiKey',
          transactionId: null,
          vendorReference: null,
          origin: req.headers.origin ?? null,
          referer: req.headers.referer ?? null,
          secFetchSite: null,
          simulated: null,
        });
      return res;
    },
  },
  // ---- scope: a write whose storage update also touches the other merchant's record ----
  // catalog-round4's core-profile mutant, in the sandbox profile, where the suite drove no B4 on a shared reference
  alsoForOther("B4 also cancels the other merchant's PENDING transaction with the same vendorReference (sandbox profile)", 'PUT', B4),
  {
    name: "sandbox customer cancel also cancels the other merchant's PENDING transaction with the same vendorReference",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (req.method !== 'POST' || MOVE.exec(req.path)?.[2] !== 'cancel' || res.status !== 200 || !key(req)) return res;
      const ref = json(res).vendorReference;
      if (typeof ref !== 'string') return res;
      const headers = { 'x-api-key': otherKey(req, ctx) };
      const theirs = await ctx.forward({
        method: 'GET',
        path: `/api/v1/public/partner/transactions/vendor/${encodeURIComponent(ref)}`,
        headers,
        body: '',
      });
      if (theirs.status === 200 && json(theirs).status === 'PENDING')
        await ctx.forward({ method: 'POST', path: `/api/v1/sandbox/transactions/${String(json(theirs).id)}/cancel`, headers, body: '' });
      return res;
    },
  },
  // ---- counts ----
  {
    name: 'sandbox reset with deleteData counts one transaction more than it deleted',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (req.method !== 'POST' || !RESET.test(req.path) || res.status !== 200) return res;
      if ((JSON.parse(req.body || '{}') as Json).deleteData !== true) return res;
      const b = json(res) as { deleted: Record<string, number> };
      return withJson(res, { ...b, deleted: { ...b.deleted, transactions: b.deleted.transactions! + 1 } });
    },
  },
  {
    name: 'fault rule answers one call more than its times',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (FAULTS.test(req.path) && req.method === 'PUT' && res.status === 200 && key(req) === ctx.keys.main) {
        const rule = json(res).rule as Json | null;
        ctx.cache.set('rule', rule ? { failure: String(rule.failure), times: Number(rule.times), answered: 0, extra: false } : null);
        return res;
      }
      const r = ctx.cache.get('rule') as TrackedRule | null | undefined;
      if (!r || req.method !== 'POST' || !B1.test(req.path) || key(req) !== ctx.keys.main || req.headers['paylater-simulate']) return res;
      if (res.status === Number(r.failure)) {
        r.answered++;
        r.last = res;
        return res;
      }
      if (r.answered >= r.times && r.last && !r.extra) {
        r.extra = true;
        return r.last;
      }
      return res;
    },
  },
  // ---- what the next delivery or read uses ----
  {
    name: 'webhook secret set by PUT shown but not used to sign deliveries (the old one still signs)',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      if (!ENDPOINT.test(req.path) || key(req) !== ctx.keys.main) return undefined;
      const claimed = ctx.cache.get('claimed secret') as string | undefined;
      if (GET(req)) {
        const res = await ctx.forward(req);
        return claimed && res.status === 200 ? withJson(res, { ...json(res), secret: claimed }) : res;
      }
      if (req.method !== 'PUT') return undefined;
      const secret = (JSON.parse(req.body || '{}') as Json).secret;
      if (typeof secret !== 'string') return undefined;
      // the PUT as sent (validated by the server), then the secret before it put back underneath
      const before = json(await ctx.forward({ method: 'GET', path: req.path, headers: req.headers, body: '' }));
      const res = await ctx.forward(req);
      if (res.status !== 200 || typeof before.secret !== 'string') return res;
      await ctx.forward({ ...req, body: JSON.stringify({ url: json(res).url, secret: before.secret }) });
      ctx.cache.set('claimed secret', secret);
      return res;
    },
  },
  {
    name: 'sandbox lists drop their filter from the second page on',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      if (!GET(req)) return undefined;
      const u = new URL(req.path, 'http://proxy.invalid');
      if (!LISTS.test(u.pathname) || !u.searchParams.has('cursor')) return undefined;
      for (const f of ['status', 'vendorReference', 'transactionId']) u.searchParams.delete(f);
      return ctx.forward({ ...req, path: `${u.pathname}${u.search}` });
    },
  },
];
