/** `x-rate-limit`: a fixed window per merchant, in the merchant's time, with the RateLimit headers on every answer. */
import type express from 'express';
import type { MerchantConfig } from '../config.ts';
import { ApiError } from './errors.ts';
import type { RateLimit } from './operations.ts';

/** Counts a request of `merchant` against `rl`, sets the RateLimit headers, throws 429 over the limit. */
export type RateLimiter = (res: express.Response, merchant: MerchantConfig, rl: RateLimit) => void;

/**
 * The limiter of operations with `x-rate-limit` (A1): fixed windows per merchant key, from its first request.
 * @rule a1-rate-limit, ADR-006
 */
export function createRateLimiter(now: (merchantId: string) => number): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return (res, merchant, rl) => {
    const t = now(merchant.id);
    let w = windows.get(merchant.id);
    if (!w || t >= w.start + rl.windowSeconds * 1000) windows.set(merchant.id, (w = { start: t, count: 0 }));
    w.count += 1;
    res.set({
      'RateLimit-Limit': String(rl.limit),
      'RateLimit-Remaining': String(Math.max(0, rl.limit - w.count)),
      'RateLimit-Reset': String(Math.max(0, Math.ceil((w.start + rl.windowSeconds * 1000 - t) / 1000))),
      'RateLimit-Policy': `${rl.limit};w=${rl.windowSeconds}`,
    });
    if (w.count > rl.limit) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `Too many requests, retry after ${rl.retryAfterSeconds} seconds`,
        undefined,
        { 'Retry-After': String(rl.retryAfterSeconds) },
        rl.retryAfterSeconds,
      );
    }
  };
}
