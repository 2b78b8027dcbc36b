/**
 * `x-rate-limit` arithmetic (components/facts/SessionRateLimit.yaml, ADR-006): a fixed window per
 * key that starts at the key's first counted request and lasts `windowSeconds`. Every answer's wait
 * (`RateLimit-Reset`; on a 429 also `Retry-After` and `error.retry_after`) is the seconds left in
 * that window at the instant the server counted the request, rounded up and at least 1, so a client
 * that waits exactly that long is counted in a new window.
 */
import type { Interval } from './time.ts';

/** The wait (s) the server answers at `now`, for a window started at `start`, known exactly. */
export function waitSeconds(start: number, now: number, windowSeconds: number): number {
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
