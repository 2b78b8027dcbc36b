/**
 * `x-auth-failure-limit` (ADR-027): failed authentications counted per client address (the
 * TCP peer, never a forwarding header) in fixed windows; past the limit every request of that
 * address that needs authentication answers 429 `AUTH_THROTTLED`, whatever it carries.
 */
import { loadBundledDocument } from '../../generated/index.ts';
import { ApiError } from './errors.ts';
import type { Repository, WindowCount } from '../store/repository.ts';

export interface AuthFailureLimit {
  limit: number;
  windowSeconds: number;
}

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
  check(address: string): void;
  /** Counts a failed authentication of `address`. */
  fail(address: string): Promise<void>;
}

/** Addresses remembered at most; past it, finished windows are dropped, then the oldest. */
const MAX_TRACKED = 100_000;

/** The prefix of the throttle's window keys. */
export const AUTH_FAILURE_KEY_PREFIX = 'authfail:';

/**
 * The failed-authentication throttle: `limit` failures per window and address, then 429.
 * Failures are counted by the repository (one counter per address across instances); `check`
 * answers from the count the last failure of the address in this process returned, so an
 * instance throttles an address once it has seen one of its failures in the window.
 * @rule ADR-027
 */
export function createAuthThrottle(repo: Pick<Repository, 'countInWindow'>, limit: AuthFailureLimit, now: () => number): AuthThrottle {
  const windows = new Map<string, WindowCount>();
  const windowMs = limit.windowSeconds * 1000;
  const current = (address: string, t: number) => {
    const w = windows.get(address);
    return w && t >= w.startMs && t < w.startMs + windowMs ? w : undefined;
  };
  const prune = (t: number) => {
    for (const [a, w] of windows) if (t >= w.startMs + windowMs) windows.delete(a);
    for (const a of windows.keys()) {
      if (windows.size < MAX_TRACKED) break;
      windows.delete(a);
    }
  };
  return {
    check(address) {
      const t = now();
      const w = current(address, t);
      if (!w || w.count < limit.limit) return;
      const seconds = Math.max(1, Math.ceil((w.startMs + windowMs - t) / 1000));
      throw new ApiError(
        'AUTH_THROTTLED',
        `Too many failed authentications from this address, retry after ${seconds} seconds`,
        undefined,
        { 'Retry-After': String(seconds) },
        seconds,
      );
    },
    async fail(address) {
      const t = now();
      const w = await repo.countInWindow(AUTH_FAILURE_KEY_PREFIX + address, t, windowMs);
      if (!windows.has(address) && windows.size >= MAX_TRACKED) prune(t);
      windows.delete(address);
      windows.set(address, w);
    },
  };
}
