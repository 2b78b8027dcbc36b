/**
 * Injected faults of round 5's classes, each a bug a real implementation ships and none of which the
 * suite found before its round-5 probes:
 * - a time limit off by a second or less, seen only from inside the last second (the token lifetime,
 *   the payment window, the rate-limit window, a webhook attempt's due time), and a sandbox clock
 *   that cannot move by less than a second;
 * - a probe family on an operation the tour did not send it to (B2 without a key, B4 an undeclared
 *   query parameter);
 * - the clock advance's one-member rule (ADR-085: seconds or milliseconds, never both);
 * - a format rule part of which is not enforced, in one variant: a pattern's shortest or longest length,
 *   a decimal string's places (the merchants of a `variant` mutant speak that variant in the self-test).
 */
import { stateMachine, variants } from '../../generated/index.ts';
import type { Json } from '../../lib/json.ts';
import { parsed } from './catalog-bounds.ts';
import { onRead, tokenLifetimeShorter } from './catalog-more.ts';
import { onDeliveries } from './catalog-retries.ts';
import { A1, B1, B2, B4, GET, code, fabricate, key, merchantKey, sandboxNow } from './match.ts';
import { json, withJson, type Mutant } from './proxy.ts';

const SECOND_MS = 1000;
const WINDOW_MS = stateMachine.paymentWindow.defaultSeconds * 1000;
const RATE = variants.v1.rateLimits.createSession;
const CLOCK_ADVANCE = '/api/v1/sandbox/clock/advance';

export const round5Mutants: Mutant[] = [
  // ---- time limits, from inside their last second ----
  tokenLifetimeShorter('session token refused from a second before its lifetime ends (3,599 s after A1)', SECOND_MS),
  {
    name: 'a PENDING transaction shown EXPIRED from a second before its payment window ends (B2, B3)',
    profile: 'sandbox',
    onResponse: onRead(async (rec, req, ctx) => {
      if (rec.status !== 'PENDING') return undefined;
      const end = Date.parse(String(rec.createdAt)) + WINDOW_MS;
      if ((await sandboxNow(ctx, merchantKey(req, ctx))) < end - SECOND_MS) return undefined;
      return { ...rec, status: 'EXPIRED', updatedAt: new Date(end - SECOND_MS).toISOString() };
    }),
  },
  {
    name: "rate-limit window a second longer (a new window's first A1 refused in the second after the end)",
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const k = key(req);
      if (req.path === '/api/v1/sandbox/reset' && res.status === 200) ctx.cache.delete(`start ${k}`);
      if (!A1.test(req.path)) return res;
      if (res.status === 429) ctx.cache.set(`429 ${k}`, res);
      // the first request of a window (the server counted it alone): when it came, on the sandbox clock
      if (res.status !== 200 || res.headers['ratelimit-remaining'] !== String(RATE.limit - 1)) return res;
      const now = await sandboxNow(ctx, k);
      const start = ctx.cache.get(`start ${k}`) as number | undefined;
      const last = ctx.cache.get(`429 ${k}`) as typeof res | undefined;
      const end = start === undefined ? undefined : start + RATE.windowSeconds * 1000;
      if (end !== undefined && last && now >= end && now < end + SECOND_MS) {
        const body = json(last) as { error: Json };
        const r = withJson(last, { error: { ...body.error, retry_after: 1 } });
        return { ...r, headers: { ...r.headers, 'retry-after': '1', 'ratelimit-reset': '1', 'ratelimit-remaining': '0' } };
      }
      ctx.cache.set(`start ${k}`, now);
      return res;
    },
  },
  {
    name: 'a webhook retry made up to a second before its nextAttemptAt (from the fifth attempt on)',
    profile: 'sandbox',
    onResponse: onDeliveries(async (d, ctx) => {
      if (d.state !== 'pending' || typeof d.nextAttemptAt !== 'string' || d.attempts.length < 4) return d;
      const due = Date.parse(d.nextAttemptAt);
      const now = await sandboxNow(ctx);
      if (now < due - SECOND_MS || now >= due) return d;
      const last = d.attempts.at(-1)!;
      return { ...d, attempts: [...d.attempts, { ...last, attempt: d.attempts.length + 1, at: new Date(now).toISOString() }] };
    }),
  },
  {
    name: 'the sandbox clock moves by whole seconds only (an advance in milliseconds rounded up to a second)',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      const body = req.method === 'POST' && req.path === CLOCK_ADVANCE ? parsed(req.body) : undefined;
      if (typeof body?.milliseconds !== 'number' || Object.keys(body).length !== 1) return undefined;
      return ctx.forward({ ...req, body: JSON.stringify({ seconds: Math.ceil(body.milliseconds / 1000) }) });
    },
  },
  {
    name: 'the sandbox clock advance takes seconds and milliseconds together (the milliseconds ignored)',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      const body = req.method === 'POST' && req.path === CLOCK_ADVANCE ? parsed(req.body) : undefined;
      if (typeof body?.seconds !== 'number' || typeof body.milliseconds !== 'number' || Object.keys(body).length !== 2) return undefined;
      return ctx.forward({ ...req, body: JSON.stringify({ seconds: body.seconds }) });
    },
  },
  // ---- a probe family on an operation the tour left out ----
  {
    name: "B2 without a key answered as the first merchant's",
    profile: 'core',
    async onRequest(req, ctx) {
      if (!GET(req) || !B2.test(req.path) || key(req) || req.headers['x-service-token'] || req.headers['x-api-key-other']) return undefined;
      return ctx.forward({ ...req, headers: { ...req.headers, 'x-api-key': ctx.keys.main } });
    },
  },
  {
    name: 'B4 drops its query string before reading the request (an undeclared parameter ignored)',
    profile: 'core',
    async onRequest(req, ctx) {
      const q = req.path.indexOf('?');
      if (req.method !== 'PUT' || q < 0 || !B4.test(req.path.slice(0, q))) return undefined;
      return ctx.forward({ ...req, path: req.path.slice(0, q) });
    },
  },
  // ---- a format rule of one variant, part of it not enforced ----
  phoneOfLength(2, 7, 'one digit shorter than its pattern allows'),
  phoneOfLength(1, 16, 'one digit longer than its pattern allows'),
  {
    name: "Variant 2's A1 takes a total with three decimals (read to the centime, the third dropped)",
    profile: 'core',
    variant: 2,
    async onResponse(req, res, ctx) {
      const body = req.method === 'POST' && A1.test(req.path) && code(res) === 'INVALID_AMOUNT' ? parsed(req.body) : undefined;
      const m = /^(\d+\.\d{2})\d$/.exec(String(body?.total));
      return m ? ctx.forward({ ...req, body: JSON.stringify({ ...body, total: m[1] }) }) : res;
    },
  },
];

/** B1 in one variant takes a customerPhone of `digits` digits, outside its pattern's length (only the phone wrong). */
function phoneOfLength(variant: 1 | 2, digits: number, how: string): Mutant {
  const shape = new RegExp(`^[1-9][0-9]{${digits - 1}}$`);
  return {
    name: `Variant ${variant}'s B1 takes a customerPhone ${how} (${digits} digits)`,
    profile: 'core',
    variant,
    async onResponse(req, res) {
      const body = req.method === 'POST' && B1.test(req.path) && code(res) === 'VALIDATION_ERROR' ? parsed(req.body) : undefined;
      if (!body || !shape.test(String(body.customerPhone))) return res;
      // only a refusal for the phone alone: another field's fault still refuses the body
      const details = ((json(res).error as Json).details ?? []) as Array<{ path?: string }>;
      if (!details.every((d) => d.path === '/customerPhone')) return res;
      return withJson(res, fabricate(body), 201);
    },
  };
}
