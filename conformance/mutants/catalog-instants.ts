/**
 * Injected faults of the leftover classes of round 3, each a bug a real implementation ships:
 * - the instant of an expiry written as the time something noticed it (a lazy expiry on read, a
 *   sweep's run), or never written (updatedAt left at creation);
 * - the SMS outbox and the webhook deliveries paged wrongly (ADR-028): a page that skips its first
 *   item, an inclusive cursor, each page in the wrong order.
 */
import type { Json } from '../../lib/json.ts';
import { B2, B3, GET, merchantKey, sandboxNow } from './match.ts';
import { json, sign, withJson, type Mutant, type ProxyContext, type ProxyRequest, type ProxyResponse } from './proxy.ts';

const LIST = /^\/api\/v1\/sandbox\/transactions(\?.*)?$/;
const SMS = /^\/api\/v1\/sandbox\/sms(\?.*)?$/;
const DELIVERIES = /^\/api\/v1\/sandbox\/webhook-deliveries(\?.*)?$/;

/** An expired transaction record (B2/B3, or an item of the sandbox list) with its updatedAt rewritten by `f`. */
function expiredRecords(f: (rec: Json, req: ProxyRequest, ctx: ProxyContext) => Promise<unknown>): Mutant['onResponse'] {
  return async (req, res, ctx) => {
    if (!GET(req) || res.status !== 200) return res;
    if (B2.test(req.path) || B3.test(req.path)) {
      const rec = json(res);
      return rec.status === 'EXPIRED' ? withJson(res, { ...rec, updatedAt: await f(rec, req, ctx) }) : res;
    }
    if (!LIST.test(req.path)) return res;
    const page = json(res) as { data: Json[] };
    const data: Json[] = [];
    for (const rec of page.data) data.push(rec.status === 'EXPIRED' ? { ...rec, updatedAt: await f(rec, req, ctx) } : rec);
    return withJson(res, { ...page, data });
  };
}

/** A `transaction.expired` webhook with its `data.expiredAt` rewritten by `f`, signed again. */
function expiredEvent(f: (p: { timestamp: string; data: Json }) => unknown): Mutant['onWebhook'] {
  return async (body, headers, ctx) => {
    const p = JSON.parse(body) as { event: string; timestamp: string; data: Json };
    if (p.event !== 'transaction.expired') return { body, headers };
    const changed = JSON.stringify({ ...p, data: { ...p.data, expiredAt: f(p) } });
    return { body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } };
  };
}

/** A page of a sandbox list (`path`) with its data rewritten by `f` (whether a cursor asked for it; a per-list cache key). */
function onPage(path: RegExp, f: (data: Json[], cursor: boolean, ctx: ProxyContext, cacheKey: string) => Json[]): Mutant['onResponse'] {
  return async (req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext) => {
    if (!path.test(req.path) || !GET(req) || res.status !== 200) return res;
    const page = json(res) as { data: Json[] };
    return withJson(res, { ...page, data: f(page.data, /[?&]cursor=/.test(req.path), ctx, `last ${path.source}`) });
  };
}

/** The three paging faults of one list. */
function pagingMutants(list: string, path: RegExp): Mutant[] {
  return [
    {
      name: `${list}: every page after the first skips its first item`,
      profile: 'sandbox',
      onResponse: onPage(path, (data, cursor) => (cursor ? data.slice(1) : data)),
    },
    {
      name: `${list}: a page repeats the previous page's last item (an inclusive cursor)`,
      profile: 'sandbox',
      onResponse: onPage(path, (data, cursor, ctx, k) => {
        const last = ctx.cache.get(k) as Json | undefined;
        // the page as sent: it starts with the cursor's own item, and still holds `limit` items
        const page = cursor && last ? [last, ...data.slice(0, -1)] : data;
        if (page.length) ctx.cache.set(k, page[page.length - 1]);
        return page;
      }),
    },
    {
      name: `${list}: each page in the opposite order`,
      profile: 'sandbox',
      onResponse: onPage(path, (data) => [...data].reverse()),
    },
  ];
}

export const instantMutants: Mutant[] = [
  // ---- the instant of an expiry (ADR-010: exactly createdAt + window) ----
  {
    name: 'expiry instant written as the time of the read that noticed it (updatedAt, expiredAt)',
    profile: 'sandbox',
    onResponse: expiredRecords(async (_rec, req, ctx) => new Date(await sandboxNow(ctx, merchantKey(req, ctx))).toISOString()),
    // the sweep that noticed it sends the event at once: its timestamp is that moment
    onWebhook: expiredEvent((p) => p.timestamp),
  },
  {
    name: 'updatedAt left at creation on expiry (expiredAt too)',
    profile: 'sandbox',
    onResponse: expiredRecords(async (rec) => rec.createdAt),
    onWebhook: expiredEvent((p) => p.data.createdAt),
  },
  // ---- the sandbox lists read through their cursors (ADR-028) ----
  ...pagingMutants('SMS outbox', SMS),
  ...pagingMutants('webhook deliveries list', DELIVERIES),
];
