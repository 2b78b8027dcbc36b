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
import type { Repository } from '../store/repository.ts';

/** Counts a request of `merchant` against `rl`, sets the RateLimit headers, rejects with 429 over the limit. */
export type RateLimiter = (res: express.Response, merchant: MerchantConfig, rl: RateLimit) => Promise<void>;

/** The prefix of a merchant's window keys (the sandbox reset forgets them with `resetWindows`). */
export function rateLimitKeyPrefix(merchantId: string): string {
  return `rate:${merchantId}:`;
}

/**
 * The limiter of operations with `x-rate-limit` (A1): fixed windows per merchant key, from its
 * first request, in the merchant's time, counted by the repository (one counter across instances).
 * @rule a1-rate-limit, ADR-006
 */
export function createRateLimiter(repo: Pick<Repository, 'countInWindow'>, now: (merchantId: string) => number): RateLimiter {
  return async (res, merchant, rl) => {
    const t = now(merchant.id);
    const windowMs = rl.windowSeconds * 1000;
    const w = await repo.countInWindow(rateLimitKeyPrefix(merchant.id), t, windowMs);
    // t < window end here, so the rounded-up wait is at least 1 and waiting it reaches the next window.
    const reset = Math.max(1, Math.ceil((w.startMs + windowMs - t) / 1000));
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
}
