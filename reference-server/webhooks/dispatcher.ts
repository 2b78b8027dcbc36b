/**
 * The webhook delivery engine (ADR-005, ADR-018).
 *
 * The core writes each event to the durable outbox in the same store write as the state
 * change, then calls `kick()`. The engine runs in the background (timers and promises, never
 * on the request path): it claims due events with `repository.claimDue`, POSTs the event's
 * body (the same bytes on every attempt) with the same `webhook-id` and a fresh
 * `webhook-timestamp` / `webhook-signature`, and records every attempt with
 * `repository.recordAttempt` before it schedules the next one.
 *
 * Schedule: attempt n+1 follows a failed attempt n after `webhookDelivery.retry.delaysSeconds[n]`
 * (read from the generated contract) ±`jitter`, divided by `compression` in the sandbox. The
 * delay is counted on the merchant's clock from the attempt's end as it records it (`at` plus
 * `durationMs`; `nextAttemptAt`, so advancing a sandbox clock makes retries due at once, even
 * while an attempt is in flight) and the engine also sets a wall-clock timer for it, so the compressed
 * schedule runs by itself. A 2xx is a delivery; a 410 disables the endpoint; anything else
 * (other status, 3xx included since redirects are not followed, refused connection, reset,
 * timeout, a URL refused by the policy) is retried; a `Retry-After` (seconds or HTTP date) on
 * 429/503 replaces the delay when longer (capped at the longest delay of the schedule, not
 * compressed: it is the receiver's real capacity). After the last attempt of the schedule the
 * event is `failed`, stays listed, and can be redelivered.
 *
 * At-least-once: an attempt whose result was not recorded (crash) is sent again after a
 * restart; receivers de-duplicate on `webhook-id`.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { webhookDelivery } from '../../generated/contract.ts';
import type { DeliveryAttempt, DeliveryState, OutboxEvent } from '../domain/outbox-event.ts';
import type { WebhookDispatcher, WebhookDispatcherDeps } from './contracts.ts';
import { errorName, sendWithFetch, sendWithNode, type SendResult } from './send.ts';
import { signHeaders, type SignedHeaders } from './signing.ts';
import { checkWebhookUrl, pinnedLookup, systemResolver, type Resolver, type WebhookMode } from './url-policy.ts';

const RETRY = webhookDelivery.retry;
export const RETRY_DELAYS_SECONDS: readonly number[] = RETRY.delaysSeconds;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length;
const RESPECT_RETRY_AFTER: readonly number[] = RETRY.respectRetryAfter;
const DISABLE_ON: readonly number[] = RETRY.disableOn;
const MAX_RETRY_AFTER_MS = Math.max(...RETRY_DELAYS_SECONDS) * 1000;
/** Timers may fire a millisecond early; a due check right at the boundary would miss. */
const WAKE_SLACK_MS = 2;

if (RETRY.followRedirects !== false) throw new Error('the contract asks to follow redirects; the engine does not');

/**
 * Delay in ms before the next attempt after `attemptsMade` attempts failed, or null when the
 * schedule is exhausted. `random` in [0,1) gives the jitter.
 * @rule webhook-retries
 */
export function retryDelayMs(
  attemptsMade: number,
  options: { mode: WebhookMode; compression: number; random: () => number },
): number | null {
  if (attemptsMade >= RETRY_DELAYS_SECONDS.length) return null;
  const base = (RETRY_DELAYS_SECONDS[attemptsMade] as number) * 1000;
  const jittered = base * (1 + RETRY.jitter * (2 * options.random() - 1));
  return options.mode === 'sandbox' ? jittered / options.compression : jittered;
}

/** `Retry-After` as milliseconds from `nowMs`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-zA-Z]/.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/**
 * The delivery engine: signed attempts on the `x-webhook-delivery` schedule, timeout, no redirects,
 * `Retry-After`, 410 disables the endpoint.
 * @rule ADR-005
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { repository, merchants, clock, mode } = deps;
  const concurrency = deps.concurrency ?? 8;
  const timeoutMs = deps.timeoutMs ?? RETRY.timeoutSeconds * 1000;
  const pollIntervalMs = deps.pollIntervalMs ?? 1000;
  const random = deps.random ?? Math.random;
  const realNow = deps.realNow ?? Date.now;
  const resolver: Resolver = deps.resolve ?? systemResolver;
  const log = deps.log ?? (() => {});
  if (!(deps.compression > 0)) throw new RangeError('compression must be > 0');
  if (!(concurrency >= 1)) throw new RangeError('concurrency must be >= 1');
  const compression = mode === 'sandbox' ? deps.compression : 1;
  const lookup = pinnedLookup(mode, resolver);

  let agents: { http: http.Agent; https: https.Agent } | undefined;
  const getAgents = () =>
    (agents ??= {
      http: new http.Agent({ keepAlive: true, maxSockets: concurrency, timeout: timeoutMs }),
      https: new https.Agent({ keepAlive: true, maxSockets: concurrency, timeout: timeoutMs }),
    });

  const key = (merchantId: string, id: string) => `${merchantId}\u0000${id}`;
  const inflight = new Map<string, Promise<void>>();
  let started = false;
  let stopped = false;
  let pumping: Promise<void> | null = null;
  let pumpAgain = false;

  // ------------------------------------------------------------ wall-clock wake-ups
  const wakeTimes: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  function wakeAt(t: number) {
    let lo = 0;
    let hi = wakeTimes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((wakeTimes[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    wakeTimes.splice(lo, 0, t);
    arm();
  }

  function arm() {
    if (!started || stopped) return;
    const now = Date.now();
    const target = Math.min(wakeTimes[0] ?? Number.POSITIVE_INFINITY, now + pollIntervalMs);
    if (timer && timerAt <= target) return;
    if (timer) clearTimeout(timer);
    timerAt = target;
    timer = setTimeout(onTimer, Math.max(0, target - now));
    timer.unref();
  }

  function onTimer() {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    while (wakeTimes.length > 0 && (wakeTimes[0] as number) <= now) wakeTimes.shift();
    kick();
    arm();
  }

  // ------------------------------------------------------------ the pump
  function kick() {
    if (!started || stopped) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = pump().finally(() => {
      pumping = null;
      if (pumpAgain) {
        pumpAgain = false;
        kick();
      }
    });
  }

  async function pump(): Promise<void> {
    try {
      while (started && !stopped) {
        const free = concurrency - inflight.size;
        if (free <= 0) return;
        // Claim no more than can start now: a claimed event waits for its lease otherwise.
        const due = await repository.claimDue(free);
        let launched = 0;
        for (const e of due) {
          const k = key(e.merchantId, e.id);
          if (inflight.has(k)) continue;
          launch(e, k);
          launched++;
        }
        if (launched < free) return;
      }
    } catch (err) {
      log(`webhooks: listing due events failed: ${errorName(err)}; retrying in ${pollIntervalMs} ms`);
    }
  }

  function launch(e: OutboxEvent, k: string) {
    const p = attempt(e)
      .catch((err: unknown) => {
        log(`webhooks: ${e.id}: ${errorName(err)}`);
        wakeAt(Date.now() + pollIntervalMs);
      })
      .finally(() => {
        inflight.delete(k);
        kick();
      });
    inflight.set(k, p);
  }

  async function park(e: OutboxEvent, state: DeliveryState) {
    await repository.setState(e.merchantId, e.id, { state, nextAttemptAt: null });
    log(`webhooks: ${e.id} ${e.event} -> ${state}`);
  }

  async function attempt(e: OutboxEvent): Promise<void> {
    const endpoint = merchants.endpoint(e.merchantId);
    if (!endpoint || !endpoint.url || !endpoint.secret) return park(e, 'no_endpoint');
    if (!endpoint.enabled) return park(e, 'disabled');

    const body = JSON.stringify(e.payload);
    let headers: SignedHeaders;
    try {
      headers = signHeaders([endpoint.secret, ...(endpoint.previousSecrets ?? [])], e.id, body, realNow());
    } catch (err) {
      log(`webhooks: merchant ${e.merchantId} has an unusable secret (${errorName(err)})`);
      return park(e, 'no_endpoint');
    }
    const at = clock.now(e.merchantId).toISOString();
    const t0 = performance.now();
    let result: SendResult;
    const verdict = checkWebhookUrl(endpoint.url, mode);
    if (!verdict.ok) result = { status: null, error: `url_refused: ${verdict.reason}`, retryAfter: undefined };
    else if (deps.fetch) result = await sendWithFetch(deps.fetch, verdict.url, body, headers, timeoutMs, mode, resolver);
    else result = await sendWithNode(verdict.url, body, headers, timeoutMs, getAgents(), lookup);
    const durationMs = Math.max(0, Math.round(performance.now() - t0));

    const attemptNo = e.attempts.length + 1;
    const record: DeliveryAttempt = { attempt: attemptNo, at, status: result.status, durationMs, error: result.error, headers };
    const { status } = result;
    let next: { state: DeliveryState; nextAttemptAt: string | null };
    let wakeInMs: number | null = null;
    if (status !== null && status >= 200 && status < 300) {
      next = { state: 'delivered', nextAttemptAt: null };
    } else if (status !== null && DISABLE_ON.includes(status)) {
      next = { state: 'disabled', nextAttemptAt: null };
    } else {
      let delay = retryDelayMs(attemptNo, { mode, compression, random });
      if (delay === null) {
        next = { state: 'failed', nextAttemptAt: null };
      } else {
        if (status !== null && RESPECT_RETRY_AFTER.includes(status)) {
          const ra = parseRetryAfter(result.retryAfter, realNow());
          if (ra !== null && ra > delay) delay = Math.min(ra, MAX_RETRY_AFTER_MS);
        }
        const d = Math.ceil(delay);
        // from the attempt's end on the clock it started on, as the attempt records it: a sandbox clock
        // advanced while it was in flight makes the next one due sooner, never later than the schedule
        next = { state: 'pending', nextAttemptAt: new Date(Date.parse(at) + durationMs + d).toISOString() };
        wakeInMs = d;
      }
    }
    // A `disabled` state disables the endpoint in the same write (see `recordAttempt`).
    await repository.recordAttempt(e.merchantId, e.id, record, next);
    if (wakeInMs !== null) wakeAt(Date.now() + wakeInMs + WAKE_SLACK_MS);
    log(
      `webhooks: ${e.id} ${e.event} attempt ${attemptNo} -> ${status ?? result.error} in ${durationMs} ms; ${next.state}` +
        (next.nextAttemptAt ? ` until ${next.nextAttemptAt}` : ''),
    );
  }

  // ------------------------------------------------------------ the interface
  async function drainInflight() {
    while (inflight.size > 0) await Promise.all([...inflight.values()]);
  }

  return {
    start() {
      if (started && !stopped) return;
      started = true;
      stopped = false;
      kick();
      arm();
    },

    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      if (pumping) await pumping;
      await drainInflight();
      agents?.http.destroy();
      agents?.https.destroy();
      agents = undefined;
    },

    kick,

    async redeliver(merchantId, id) {
      const existing = await repository.get(merchantId, id);
      if (!existing) return undefined;
      const k = key(merchantId, id);
      const running = inflight.get(k);
      if (running) await running;
      const endpoint = merchants.endpoint(merchantId);
      if (endpoint && !endpoint.enabled) await merchants.setEndpointEnabled(merchantId, true);
      const queued = await repository.requeue(merchantId, id, clock.now(merchantId).toISOString());
      kick();
      return queued;
    },

    async idle() {
      for (;;) {
        if (pumping) await pumping;
        if (inflight.size > 0) {
          await Promise.race([...inflight.values()]);
          continue;
        }
        if (!started || stopped) return;
        const due = await repository.claimDue(1);
        if (due.length === 0 && !pumping && inflight.size === 0) return;
        for (const e of due) {
          const k = key(e.merchantId, e.id);
          if (!inflight.has(k)) launch(e, k);
        }
        kick();
        if (pumping) await pumping;
        else await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
}
