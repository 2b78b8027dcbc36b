/**
 * `x-rate-limit`: a fixed window per merchant, in the merchant's time, with the RateLimit
 * headers on every answer. A 429's wait is one number (ADR-006): `RateLimit-Reset`,
 * `Retry-After` and `retry_after` all say the seconds until the window ends, so a client
 * that waits exactly that long is counted in a new window.
 */
import { errorMessage } from '../../lib/error-messages.ts';
import type express from 'express';
import type { MerchantConfig } from '../config.ts';
import { ApiError } from './errors.ts';
import type { RateLimit } from './operations.ts';

/** Counts a request of `merchant` against `rl`, sets the RateLimit headers, throws 429 over the limit. */
export type RateLimiter = (res: express.Response, merchant: MerchantConfig, rl: RateLimit) => void;

/** Counts requests per merchant; `reset` forgets a merchant's window (the sandbox reset). */
export interface RateLimiterHandle {
  limit: RateLimiter;
  reset: (merchantId: string) => void;
}

/**
 * The limiter of operations with `x-rate-limit` (A1): fixed windows per merchant key, from its first request.
 * @rule a1-rate-limit, ADR-006
 */
export function createRateLimiter(now: (merchantId: string) => number): RateLimiterHandle {
  const windows = new Map<string, { start: number; count: number }>();
  const limit: RateLimiter = (res, merchant, rl) => {
    const t = now(merchant.id);
    let w = windows.get(merchant.id);
    if (!w || t < w.start || t >= w.start + rl.windowSeconds * 1000) windows.set(merchant.id, (w = { start: t, count: 0 }));
    w.count += 1;
    // t < window end here, so the rounded-up wait is at least 1 and waiting it reaches the next window.
    const reset = Math.ceil((w.start + rl.windowSeconds * 1000 - t) / 1000);
    res.set({
      'RateLimit-Limit': String(rl.limit),
      'RateLimit-Remaining': String(Math.max(0, rl.limit - w.count)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${rl.limit};w=${rl.windowSeconds}`,
    });
    if (w.count > rl.limit) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        errorMessage('RATE_LIMIT_EXCEEDED', { seconds: reset }),
        undefined,
        { 'Retry-After': String(reset) },
        reset,
      );
    }
  };
  return { limit, reset: (merchantId) => void windows.delete(merchantId) };
}
