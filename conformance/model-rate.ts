/**
 * The rate-limit model of A1 (`x-rate-limit`): per key, the requests used in the current window and
 * the window's end, both as bounds (performance.now() ms, less the seconds the sandbox clock was
 * advanced). Synchronised from the RateLimit-* headers when an answer carries them. Model data
 * only: the caller gives the instant and the exchange's status, headers and times.
 */
import { bodyGen } from './gen.ts';
import type { ModelState, Who } from './model-state.ts';
import { SLACK_MS, type Verdict } from './model-time.ts';

/** What the rate model reads of an answer. */
export interface RateAnswer {
  opId: string;
  status: number;
  sentAt: number;
  receivedAt: number;
  responseHeaders: Record<string, string>;
}

/** A verdict check (the Real side's): a false `ok` is a finding. */
export type Check = (ok: boolean, op: string, path: string, msg: string, expected?: unknown, actual?: unknown) => void;

export function rateLimit(s: ModelState): { limit: number; windowSeconds: number } {
  return s.contract.rateLimits.createSession!;
}

/** Will the next counted A1 request of `who`, sent at `now`, be refused with 429? Forgets a window that certainly ended. */
export function rateLimited(s: ModelState, who: Who, now: number): Verdict {
  const r = s.rate[who];
  const adv = s.advanced[who] * 1000;
  if (r.endHi - adv <= now) {
    r.usedLo = 0;
    r.usedHi = 0;
    r.endLo = -Infinity;
    r.endHi = Infinity;
  } else if (r.endLo - adv <= now) r.usedLo = 0;
  const limit = rateLimit(s).limit;
  return r.usedLo >= limit ? 'yes' : r.usedHi < limit ? 'no' : 'maybe';
}

/** After an A1 answer counted against the key: sync from RateLimit-* headers when present, checked against the model. */
export function countRate(s: ModelState, who: Who, ex: RateAnswer, check: Check): void {
  const r = s.rate[who];
  const { limit, windowSeconds } = rateLimit(s);
  if (ex.status === 429) s.rate429++;
  const rem = ex.responseHeaders['ratelimit-remaining'];
  const reset = ex.responseHeaders['ratelimit-reset'];
  const lim = ex.responseHeaders['ratelimit-limit'];
  if (lim !== undefined)
    check(Number(lim) === limit, ex.opId, 'header RateLimit-Limit', `RateLimit-Limit ${lim}, x-rate-limit says ${limit}`, limit, lim);
  if (rem !== undefined && reset !== undefined) {
    const used = limit - Number(rem);
    if (ex.status !== 429) {
      check(
        used >= r.usedLo + 1,
        ex.opId,
        'header RateLimit-Remaining',
        `RateLimit-Remaining ${rem}, the model counted at least ${r.usedLo + 1} requests in this window`,
        limit - r.usedLo - 1,
        Number(rem),
      );
      check(
        used <= r.usedHi + 1,
        ex.opId,
        'header RateLimit-Remaining',
        `RateLimit-Remaining ${rem}, the model counted at most ${r.usedHi + 1} requests in this window`,
        limit - r.usedHi - 1,
        Number(rem),
      );
    } else {
      check(Number(rem) === 0, ex.opId, 'header RateLimit-Remaining', `429 with RateLimit-Remaining ${rem}`, 0, Number(rem));
    }
    check(
      Number(reset) <= windowSeconds,
      ex.opId,
      'header RateLimit-Reset',
      `RateLimit-Reset ${reset} exceeds the ${windowSeconds} s window`,
    );
    r.usedLo = r.usedHi = Math.min(used, limit);
    const adv = s.advanced[who] * 1000;
    r.endLo = ex.sentAt + (Number(reset) - 1) * 1000 + adv - SLACK_MS;
    r.endHi = ex.receivedAt + (Number(reset) + 1) * 1000 + adv + SLACK_MS;
  } else {
    r.usedLo = Math.min(r.usedLo + 1, limit);
    r.usedHi = Math.min(r.usedHi + 1, limit);
  }
}

/** A request that the server may or may not have counted (refused before routing). */
export function countRateMaybe(s: ModelState, who: Who, ex: RateAnswer, check: Check): void {
  if (ex.status === 429 || ex.responseHeaders['ratelimit-remaining'] !== undefined) return countRate(s, who, ex, check);
  const r = s.rate[who];
  r.usedHi = Math.min(r.usedHi + 1, rateLimit(s).limit);
}

/**
 * A1 requests the core profile's coverage tour needs besides its boundary probes (its sessions and
 * probes, before its burst): the random search leaves them in the rate-limit window, which only
 * the sandbox clock can reset.
 */
export const A1_TOUR_RESERVE = 15;

/**
 * Core profile: the random search stops sending A1 requests once the window's budget is down to
 * what the coverage tour needs (with A1's boundary probes). Reads the model's count of A1 requests sent.
 */
export function a1Reserved(s: ModelState): boolean {
  const reserve = A1_TOUR_RESERVE + bodyGen(s.contract, 'createSession').probes.length;
  return !s.sandbox && !s.inTour && s.a1Sent >= rateLimit(s).limit - reserve;
}
