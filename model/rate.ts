/**
 * A rate limit's fixed window (`x-rate-limit`, ADR-006; components/facts/SessionRateLimit.yaml):
 * the (limit + 1)-th counted request of a window gets 429; the wait every answer names
 * (`RateLimit-Reset`, and a 429's `Retry-After` and `error.retry_after`) is the seconds until the
 * window ends, rounded up, at least 1; a request sent that many seconds later is counted in a new
 * window. Time comes in as intervals (time.ts). The window starts at the key's first counted
 * request; the suite knows that request's interval (`waitRange`), the proxy reads the window's end
 * back from an answer's wait (`windowEndOf`).
 */
import { variants } from '../generated/contract.ts';
import { reached, type Interval, type Verdict } from './time.ts';

type RateLimit = { limit: number; windowSeconds: number };
const LIMITS = { 1: variants.v1.rateLimits, 2: variants.v2.rateLimits } as Record<1 | 2, Record<string, RateLimit | undefined>>;

/**
 * The rate limit of `op` in `variant`, or undefined when it has none. Without a variant (a key
 * whose variant is not known yet), the limit both variants state alike, or undefined when they
 * differ: a window is only judged once the key's variant decides which limit counts.
 */
export function rateLimitOf(op: string, variant?: 1 | 2): RateLimit | undefined {
  if (variant !== undefined) return LIMITS[variant][op];
  const [a, b] = [LIMITS[1][op], LIMITS[2][op]];
  return a && b && a.limit === b.limit && a.windowSeconds === b.windowSeconds ? a : undefined;
}

/**
 * When the window ends, from a wait of `waitSeconds` answered during `now`: the wait is the
 * seconds left rounded up (at least 1), so the end lies after (wait − 1) s and at most wait s
 * past the instant the server read its clock.
 * (Rule a1-rate-limit, decided where the server answers it.)
 */
export function windowEndOf(now: Interval, waitSeconds: number): Interval {
  return { from: now.from + Math.max(0, waitSeconds - 1) * 1000, to: now.to + waitSeconds * 1000 };
}

/** Whether a request handled during `now` falls in a window after the one ending within `end`: 'yes', 'no' or 'maybe'. */
export function windowPassed(now: Interval, end: Interval, slack = 0): Verdict {
  return reached(now, end, slack);
}

/** The answer the contract gives the next counted request of a window that counted `used` before it: refused once the limit is reached. */
export function rateRefuses(used: number, limit: number): boolean {
  return used >= limit;
}

/** The wait (s) the server answers at `now`, for a window started at `start`, known exactly. */
function waitSeconds(start: number, now: number, windowSeconds: number): number {
  return Math.max(1, Math.ceil((start + windowSeconds * 1000 - now) / 1000));
}

/**
 * The waits (s) the contract allows an answer counted within `now`, for a window whose first
 * counted request was within `start` (both widened by `slack` ms): from the wait at the latest
 * start and latest `now`… to the one at the earliest start and earliest `now`, i.e. `min` from
 * start.from and now.to, `max` from start.to and now.from.
 */
export function waitRange(start: Interval, now: Interval, windowSeconds: number, slack = 0): { min: number; max: number } {
  return {
    min: waitSeconds(start.from - slack, now.to + slack, windowSeconds),
    max: waitSeconds(start.to + slack, now.from - slack, windowSeconds),
  };
}
