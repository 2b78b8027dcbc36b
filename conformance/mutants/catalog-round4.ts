/**
 * Injected faults of round 4's classes, each a bug a real implementation ships:
 * - repeated values: a value one answer repeats from another, wrong where only the session-token
 *   verification record (A2) or a checkout event carries it;
 * - instants: a "last changed" instant that does not move with a later change, or A2's date form
 *   that keeps the creation after a change;
 * - a refusal answered wrongly from one status only (a move x-state-machine forbids from several);
 * - cross-merchant effects and near-miss lookup keys (B3/B4's vendorReference).
 */
import { loadBundledDocument, maxBodyBytes, stateMachine, variants } from '../../generated/index.ts';
import { errorMessage } from '../../lib/error-messages.ts';
import { valueAt, type Json } from '../../lib/json.ts';
import { A1, A2, B1, B2, B3, B4, GET, code, key, otherKey, sandboxNow } from './match.ts';
import { parsed } from './catalog-bounds.ts';
import { json, sign, withJson, type Mutant, type ProxyRequest } from './proxy.ts';

const PAY = /^\/api\/v1\/sandbox\/sessions\/pay$/;
const MOVE = /^\/api\/v1\/sandbox\/transactions\/([0-9a-f-]{36})\/(confirm|cancel|complete)$/;
const LIST = /^\/api\/v1\/sandbox\/transactions(\?.*)?$/;

/** The transaction ids the sandbox pay step answered: checkout transactions (kept in the proxy's cache). */
function checkoutIds(cache: Map<string, unknown>): Set<string> {
  let s = cache.get('checkout ids') as Set<string> | undefined;
  if (!s) cache.set('checkout ids', (s = new Set()));
  return s;
}

/** A valid phone of the same form with its last digit changed. */
const otherPhone = (p: unknown): unknown => (typeof p === 'string' ? p.slice(0, -1) + String((Number(p.slice(-1)) + 1) % 10) : p);

/** B2, B3 or a sandbox move's answer, or the sandbox list's page: each record passed through `f`. */
function everyRecord(f: (rec: Json, req: ProxyRequest) => Json): Mutant['onResponse'] {
  return async (req, res) => {
    if (res.status !== 200) return res;
    if ((GET(req) && (B2.test(req.path) || B3.test(req.path))) || (req.method === 'POST' && MOVE.test(req.path)))
      return withJson(res, f(json(res), req));
    if (GET(req) && LIST.test(req.path)) {
      const page = json(res) as { data: Json[] };
      return withJson(res, { ...page, data: page.data.map((r) => f(r, req)) });
    }
    return res;
  };
}

/** A sandbox move (`move`) refused with `refusal` answered as made, from status `from` only (to `to`); read by B2 with the caller's key. */
function allowedFrom(move: string, refusal: string, from: string, to: string, what: string): Mutant {
  return {
    name: `${what} allowed from ${from} (refused from the other statuses)`,
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const m = MOVE.exec(req.path);
      if (m?.[2] !== move || code(res) !== refusal) return res;
      const cur = await ctx.forward({ method: 'GET', path: `/api/v1/public/partner/transactions/${m[1]}`, headers: req.headers, body: '' });
      if (cur.status !== 200) return res;
      const rec = json(cur);
      return rec.status === from ? withJson(res, { ...rec, status: to, updatedAt: new Date().toISOString() }, 200) : res;
    },
  };
}

/** B1's largest item count (`maxItems` of its request's `items`), read from the bundled document. */
const B1_MAX_ITEMS = Number(
  valueAt(loadBundledDocument(1), 'components', 'schemas', 'PartnerTransactionCreateRequest', 'properties', 'items', 'maxItems'),
);

/**
 * B3 and B4 looking a vendorReference up in the form `f` gives it (a normalisation an implementation
 * applies to the key before its lookup): the request forwarded with the rewritten key when it changes.
 */
function lookupBy(name: string, f: (ref: string) => string): Mutant {
  return {
    name,
    profile: 'core',
    async onRequest(req, ctx) {
      const m = B3.exec(req.path) ?? B4.exec(req.path);
      if (!m || !key(req)) return undefined;
      let ref: string;
      try {
        ref = decodeURIComponent(m[1]!);
      } catch {
        return undefined;
      }
      const to = f(ref);
      if (to === ref) return undefined;
      const at = req.path.lastIndexOf(`/${m[1]!}`);
      return ctx.forward({ ...req, path: `${req.path.slice(0, at)}/${encodeURIComponent(to)}${req.path.slice(at + 1 + m[1]!.length)}` });
    },
  };
}

export const round4Mutants: Mutant[] = [
  // ---- repeated values where only A2 or a checkout event carries them ----
  {
    name: "A2's store_name is the merchant's name (repeated value in the session-token record)",
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!GET(req) || !A2.test(req.path) || res.status !== 200) return res;
      const rec = json(res);
      return withJson(res, { ...rec, store_name: rec.merchant_name });
    },
  },
  {
    name: "checkout events carry another customerPhone than the transaction's (re-signed)",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      if (req.method === 'POST' && PAY.test(req.path) && res.status === 200) checkoutIds(ctx.cache).add(String(json(res).transaction_id));
      return res;
    },
    async onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { data: Json };
      if (!checkoutIds(ctx.cache).has(String(p.data.id))) return { body, headers };
      const changed = JSON.stringify({ ...p, data: { ...p.data, customerPhone: otherPhone(p.data.customerPhone) } });
      return { body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } };
    },
  },
  // ---- the last change's instant ----
  {
    name: "completion keeps the approval's updatedAt (the last change's instant does not move)",
    profile: 'sandbox',
    onResponse: async (req, res, ctx) => {
      const m = MOVE.exec(req.path);
      if (m?.[2] === 'confirm' && res.status === 200) ctx.cache.set(`approved ${m[1]}`, json(res).updatedAt);
      return everyRecord((rec) => {
        const approved = ctx.cache.get(`approved ${String(rec.id)}`);
        return rec.status === 'COMPLETED' && approved !== undefined ? { ...rec, updatedAt: approved } : rec;
      })!(req, res, ctx);
    },
  },
  {
    name: "A2's updated_at stays created_at after a change (ADR-007's date form)",
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!GET(req) || !A2.test(req.path) || res.status !== 200) return res;
      const rec = json(res);
      return withJson(res, { ...rec, updated_at: rec.created_at });
    },
  },
  // ---- a refusal from one status only ----
  allowedFrom('cancel', 'TRANSACTION_NOT_PENDING', 'COMPLETED', 'CANCELED', 'the customer cancel'),
  allowedFrom('complete', 'TRANSACTION_NOT_APPROVED', 'EXPIRED', 'COMPLETED', 'completion'),
  // ---- the last accepted instant of a time limit ----
  {
    name: 'confirmation refused in the last minute of the payment window (a window a minute short)',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      const m = MOVE.exec(req.path);
      if (m?.[2] !== 'confirm') return undefined;
      const cur = await ctx.forward({ method: 'GET', path: `/api/v1/public/partner/transactions/${m[1]}`, headers: req.headers, body: '' });
      if (cur.status !== 200 || json(cur).status !== 'PENDING') return undefined;
      const left =
        Date.parse(String(json(cur).createdAt)) + stateMachine.paymentWindow.defaultSeconds * 1000 - (await sandboxNow(ctx, key(req)));
      if (left > 60_000) return undefined;
      const body = JSON.stringify({
        error: {
          code: 'TRANSACTION_NOT_PENDING',
          message: errorMessage('TRANSACTION_NOT_PENDING', { required: 'PENDING', status: 'EXPIRED' }),
        },
      });
      return { status: 400, headers: { 'content-type': 'application/json; charset=utf-8' }, body };
    },
  },
  // ---- cross-merchant effects ----
  {
    name: "B4 also cancels the other merchant's transaction with the same vendorReference",
    profile: 'core',
    async onResponse(req, res, ctx) {
      if (!B4.test(req.path) || res.status !== 200) return res;
      await ctx.forward({ ...req, headers: { ...req.headers, 'x-api-key': otherKey(req, ctx) } });
      return res;
    },
  },
  {
    name: 'B3 reads a vendorReference with a trailing dot as the reference without it',
    profile: 'core',
    async onRequest(req, ctx) {
      const m = B3.exec(req.path);
      if (!GET(req) || !m || !m[1]!.endsWith('.') || !key(req)) return undefined;
      return ctx.forward({ ...req, path: req.path.slice(0, -1) });
    },
  },
  // ---- near-miss lookup keys: the normalisations an implementation applies to a key ----
  lookupBy('B3 and B4 trim the vendorReference (String.prototype.trim: spaces, tabs, newlines, no-break spaces)', (r) => r.trim()),
  lookupBy('B3 and B4 read the vendorReference NFKC-normalised (fullwidth letters and digits as ASCII)', (r) => r.normalize('NFKC')),
  lookupBy('B3 and B4 strip invisible characters from the vendorReference (zero-width space, joiner, BOM)', (r) =>
    r.replace(/[\u200b-\u200d\ufeff]/g, ''),
  ),
  lookupBy('B3 and B4 decode the vendorReference twice (%2D read as -)', (r) => {
    try {
      return decodeURIComponent(r);
    } catch {
      return r;
    }
  }),
  // ---- a stored value read back in another form, only on the numbers the service really serves ----
  {
    name: 'a Moroccan mobile (2126…/2127…) read back in national form (06…/07…) by B2/B3',
    profile: 'core',
    async onResponse(req, res) {
      if (!GET(req) || !(B2.test(req.path) || B3.test(req.path)) || res.status !== 200) return res;
      const rec = json(res);
      const p = rec.customerPhone;
      return typeof p === 'string' && /^212[67][0-9]{8}$/.test(p) ? withJson(res, { ...rec, customerPhone: `0${p.slice(3)}` }) : res;
    },
  },
  // ---- the last accepted value of a limit refused (a limit counted exclusive) ----
  {
    name: 'B1 refuses an order of exactly maxItems lines (the limit counted exclusive)',
    profile: 'core',
    async onRequest(req, ctx) {
      const body = B1.test(req.path) && req.method === 'POST' ? parsed(req.body) : undefined;
      const items = body?.items as unknown[] | undefined;
      if (!Array.isArray(items) || items.length !== B1_MAX_ITEMS) return undefined;
      // the server's own 400 for one line more
      return ctx.forward({ ...req, body: JSON.stringify({ ...body, items: [...items, items[0]] }) });
    },
  },
  {
    name: 'B1 refuses a body of exactly x-max-body-bytes with 413 (the limit counted exclusive)',
    profile: 'core',
    async onRequest(req, ctx) {
      if (!B1.test(req.path) || req.method !== 'POST' || Buffer.byteLength(req.body) !== maxBodyBytes) return undefined;
      // the server's own 413 for one byte more
      return ctx.forward({ ...req, body: `${req.body} ` });
    },
  },
  // ---- rate-limit arithmetic (core profile) ----
  {
    name: "A1's wait counted from the request itself (RateLimit-Reset, and a 429's Retry-After and retry_after, always a whole window)",
    profile: 'core',
    async onResponse(req, res) {
      if (!A1.test(req.path) || res.headers['ratelimit-reset'] === undefined) return res;
      const whole = String(variants.v1.rateLimits.createSession.windowSeconds);
      if (res.status !== 429) return { ...res, headers: { ...res.headers, 'ratelimit-reset': whole } };
      const body = json(res) as { error: Json };
      const message = errorMessage('RATE_LIMIT_EXCEEDED', { seconds: whole });
      const r = withJson(res, { error: { ...body.error, message, retry_after: Number(whole) } });
      return { ...r, headers: { ...r.headers, 'ratelimit-reset': whole, 'retry-after': whole } };
    },
  },
];
