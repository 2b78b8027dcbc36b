/**
 * Injected faults of the webhook retry schedule, one rule each, as the sandbox shows it (ADR-005):
 * the deliveries list's attempts and `nextAttemptAt` (the schedule, `Retry-After`, 410) and the
 * webhook endpoint's `enabled`, rewritten in the proxy.
 */
import { webhookDelivery } from '../../generated/index.ts';
import type { Json } from '../../lib/json.ts';
import { GET, sandboxNow } from './match.ts';
import { json, withJson, type Mutant, type ProxyContext } from './proxy.ts';

export type Delivery = Json & { attempts: Json[]; nextAttemptAt: unknown };

/** The sandbox deliveries list with each failed delivery (its first attempt not 2xx) rewritten by `f`. */
export function onDeliveries(f: (d: Delivery, ctx: ProxyContext) => Json | Promise<Json>): Mutant['onResponse'] {
  return async (req, res, ctx) => {
    if (!req.path.startsWith('/api/v1/sandbox/webhook-deliveries') || !GET(req) || res.status !== 200) return res;
    const b = json(res) as Json & { data: Delivery[] };
    const failed = (d: { attempts: Json[] }): boolean => d.attempts.length > 0 && Number(d.attempts[0]!.status) >= 300;
    return withJson(res, { ...b, data: await Promise.all(b.data.map(async (d) => (failed(d) ? f(d, ctx) : d))) });
  };
}

const RETRY = webhookDelivery.retry;
const LAST_ATTEMPT = RETRY.delaysSeconds.length;
/** The nominal compressed delay (ms) before attempt `n + 1` after `n` failed attempts. */
const retryDelayMs = (n: number): number => ((RETRY.delaysSeconds[n] ?? NaN) * 1000) / RETRY.sandboxCompression;
/** `ms` after a delivery's last attempt started, as an ISO time. */
const afterLast = (d: Delivery, ms: number): string => new Date(Date.parse(String(d.attempts.at(-1)!.at)) + ms).toISOString();
const lastStatus = (d: Delivery): number => Number(d.attempts.at(-1)!.status);
/** A pending delivery whose last attempt asked for a Retry-After shown due after the schedule's delay instead, when `when`. */
const retryAfterIgnored = (when: (d: Delivery) => boolean) =>
  onDeliveries((d) =>
    d.nextAttemptAt !== null && (RETRY.respectRetryAfter as readonly number[]).includes(lastStatus(d)) && when(d)
      ? { ...d, nextAttemptAt: afterLast(d, Number(d.attempts.at(-1)!.durationMs) + retryDelayMs(d.attempts.length)) }
      : d,
  );

/** The sandbox webhook endpoint as GET and PUT answer it, rewritten by `f`. */
function onEndpoint(f: (e: Json, ctx: ProxyContext) => Json): Mutant['onResponse'] {
  return (req, res, ctx) =>
    Promise.resolve(
      req.path === '/api/v1/sandbox/webhook-endpoint' && (GET(req) || req.method === 'PUT') && res.status === 200
        ? withJson(res, f(json(res), ctx))
        : res,
    );
}

export const retryMutants: Mutant[] = [
  {
    name: 'webhook retries stop after the first failed attempt',
    profile: 'sandbox',
    onResponse: onDeliveries((d) => ({ ...d, attempts: d.attempts.slice(0, 1), state: 'failed', nextAttemptAt: null })),
  },
  {
    name: "webhook retries sent at once, without the schedule's delays",
    profile: 'sandbox',
    onResponse: onDeliveries((d) => ({
      ...d,
      attempts: d.attempts.map((a) => ({ ...a, at: d.attempts[0]!.at })),
      nextAttemptAt: d.nextAttemptAt === null ? null : d.attempts[0]!.at,
    })),
  },
  {
    name: 'webhook retries end after the sixth attempt (failed with two of the schedule left)',
    profile: 'sandbox',
    onResponse: onDeliveries((d) =>
      d.attempts.length >= 6 && lastStatus(d) === 500
        ? { ...d, attempts: d.attempts.slice(0, 6), state: 'failed', nextAttemptAt: null }
        : d,
    ),
  },
  {
    name: "webhook attempt 6 due after attempt 7's delay",
    profile: 'sandbox',
    onResponse: onDeliveries((d) =>
      d.attempts.length === 5 && d.nextAttemptAt !== null ? { ...d, nextAttemptAt: afterLast(d, retryDelayMs(6)) } : d,
    ),
  },
  {
    name: "Retry-After ignored (the next webhook attempt due after the schedule's delay)",
    profile: 'sandbox',
    onResponse: retryAfterIgnored(() => true),
  },
  {
    name: 'Retry-After as an HTTP date ignored (the second attempt answered with one, as the suite sends it)',
    profile: 'sandbox',
    onResponse: retryAfterIgnored((d) => d.attempts.length === 2),
  },
  {
    name: 'a 410 does not disable the webhook endpoint (the delivery pending, retried)',
    profile: 'sandbox',
    onResponse: onDeliveries((d) =>
      (RETRY.disableOn as readonly number[]).includes(lastStatus(d))
        ? { ...d, state: 'pending', nextAttemptAt: afterLast(d, retryDelayMs(1)) }
        : d,
    ),
  },
  {
    name: 'a ninth webhook attempt once the sandbox clock passes the schedule',
    profile: 'sandbox',
    onResponse: onDeliveries(async (d, ctx) => {
      if (d.attempts.length !== LAST_ATTEMPT || d.state !== 'failed') return d;
      const at = afterLast(d, retryDelayMs(LAST_ATTEMPT - 1));
      if ((await sandboxNow(ctx)) < Date.parse(at)) return d;
      return { ...d, attempts: [...d.attempts, { ...d.attempts.at(-1)!, attempt: LAST_ATTEMPT + 1, at }] };
    }),
  },
  {
    name: 'webhook endpoint shown enabled after a 410 disabled it',
    profile: 'sandbox',
    onResponse: onEndpoint((e) => ({ ...e, enabled: true })),
  },
  {
    name: 'setting the webhook URL does not enable an endpoint a 410 disabled',
    profile: 'sandbox',
    onResponse: onEndpoint((e, ctx) => {
      if (e.enabled === false) ctx.cache.set('disabled', true);
      return ctx.cache.has('disabled') ? { ...e, enabled: false } : e;
    }),
  },
];
