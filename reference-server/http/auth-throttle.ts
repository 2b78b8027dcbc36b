/**
 * `x-auth-failure-limit` (ADR-027): failed authentications counted per client address (the
 * TCP peer, never a forwarding header) in fixed windows; past the limit every request of that
 * address that needs authentication answers 429 `AUTH_THROTTLED`, whatever it carries.
 */
import { loadBundledDocument } from '../../generated/index.ts';
import { ApiError } from './errors.ts';
import { errorMessage } from '../../lib/error-messages.ts';
import type { Repository } from '../store/repository.ts';
import type { AuthFailureLimit } from '../config.ts';

/** The spec's fact (the same on every security scheme). */
export const specAuthFailureLimit: AuthFailureLimit = (() => {
  const schemes =
    (loadBundledDocument(1).components as { securitySchemes?: Record<string, { 'x-auth-failure-limit'?: Partial<AuthFailureLimit> }> })
      .securitySchemes ?? {};
  const facts = Object.values(schemes).map((s) => s['x-auth-failure-limit']);
  const f = facts[0];
  if (!f || typeof f.limit !== 'number' || typeof f.windowSeconds !== 'number')
    throw new Error('spec: security schemes have no x-auth-failure-limit');
  if (facts.some((x) => x?.limit !== f.limit || x?.windowSeconds !== f.windowSeconds))
    throw new Error('spec: security schemes disagree on x-auth-failure-limit');
  return { limit: f.limit, windowSeconds: f.windowSeconds };
})();

export interface AuthThrottle {
  /** Throws 429 `AUTH_THROTTLED` when `address` used up its failures in the current window. */
  check(address: string): Promise<void>;
  /** Counts a failed authentication of `address`. */
  fail(address: string): Promise<void>;
}

/** The prefix of the throttle's window keys. */
export const AUTH_FAILURE_KEY_PREFIX = 'authfail:';

/**
 * The failed-authentication throttle: `limit` failures per window and address, then 429.
 * The repository keeps the one counter per address, so every instance sharing it throttles
 * an address as soon as its failures, wherever they were made, reach the limit.
 * @rule ADR-027
 */
export function createAuthThrottle(
  repo: Pick<Repository, 'countInWindow' | 'peekWindow'>,
  limit: AuthFailureLimit,
  now: () => number,
): AuthThrottle {
  const windowMs = limit.windowSeconds * 1000;
  return {
    async check(address) {
      const t = now();
      const w = await repo.peekWindow(AUTH_FAILURE_KEY_PREFIX + address, t, windowMs);
      if (!w || w.count < limit.limit) return;
      const seconds = Math.max(1, Math.ceil((w.startMs + windowMs - t) / 1000));
      throw new ApiError(
        'AUTH_THROTTLED',
        errorMessage('AUTH_THROTTLED', { seconds }),
        undefined,
        { 'Retry-After': String(seconds) },
        seconds,
      );
    },
    async fail(address) {
      await repo.countInWindow(AUTH_FAILURE_KEY_PREFIX + address, now(), windowMs);
    },
  };
}
