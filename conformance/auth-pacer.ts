/**
 * The suite under the contract's failed-authentication throttle (`x-auth-failure-limit` of every
 * security scheme, ADR-027): `limit` answers 401 per client address in `windowSeconds`, then every
 * authenticated request of that address answers 429 `AUTH_THROTTLED` with `Retry-After`.
 *
 * The suite's wrong-credential probes are many more than one window's budget (one per operation
 * and credential form), and every request it sends comes from one address. So:
 * - it counts the 401 answers it got, each at the moment its answer arrived (the server counted it
 *   no later);
 * - until the server has throttled it once, it sends freely (a server without the throttle costs
 *   no wait, and a throttling one stops it at `limit`, which the contract allows);
 * - when an answer is 429 `AUTH_THROTTLED` with a `Retry-After` the contract allows (1 to
 *   `windowSeconds`), the request had no effect: the suite waits `Retry-After` and sends it again
 *   instead of judging it (at most MAX_RESENDS times for one request: another client of the same
 *   address may keep the window spent);
 * - from then on it paces: a request that may fail authentication (it carries none of the keys the
 *   suite was given under a security scheme's header: a key under another header name fails too) waits until fewer than `limit - 1` of its 401s lie within the last
 *   `windowSeconds` (+ PACE_MARGIN_MS), so the server's count, fixed or sliding window, never
 *   reaches the limit again.
 * Black-box: the limit is read from the variant's bundled document.
 */
import type { Contract } from '../judge/contract.ts';

export interface AuthFailureLimit {
  limit: number;
  windowSeconds: number;
}

/** A request is sent again after an `AUTH_THROTTLED` at most this many times, then judged. */
export const MAX_RESENDS = 2;
/** Added to the window when pacing: the two clocks' resolution and a request's time in flight. */
export const PACE_MARGIN_MS = 1000;

/** The `x-auth-failure-limit` of the document's security schemes (one value, or null when none declares it). */
export function authFailureLimit(contract: Pick<Contract, 'doc'>): AuthFailureLimit | null {
  const schemes = ((contract.doc.components as Record<string, unknown> | undefined)?.securitySchemes ?? {}) as Record<
    string,
    { 'x-auth-failure-limit'?: Partial<AuthFailureLimit> }
  >;
  const facts = Object.values(schemes)
    .map((s) => s['x-auth-failure-limit'])
    .filter((f): f is Partial<AuthFailureLimit> => f !== undefined);
  const f = facts[0];
  if (!f || typeof f.limit !== 'number' || typeof f.windowSeconds !== 'number') return null;
  if (facts.some((x) => x.limit !== f.limit || x.windowSeconds !== f.windowSeconds))
    throw new Error('spec: the security schemes disagree on x-auth-failure-limit');
  return { limit: f.limit, windowSeconds: f.windowSeconds };
}

/**
 * The headers a security scheme of the document reads its credential from, lower-cased: a known key
 * counts as a credential only there (sent under another name, it fails authentication).
 */
export function credentialHeaders(contract: Pick<Contract, 'doc'>): Set<string> {
  const schemes = ((contract.doc.components as Record<string, unknown> | undefined)?.securitySchemes ?? {}) as Record<
    string,
    { in?: string; name?: string }
  >;
  return new Set(
    Object.values(schemes)
      .filter((s) => s.in === 'header' && typeof s.name === 'string')
      .map((s) => s.name!.toLowerCase()),
  );
}

export class AuthPacer {
  /** performance.now() of each 401 answer, oldest first (pruned to the window). */
  private readonly failures: number[] = [];
  /** Set by the first `AUTH_THROTTLED`: the server enforces the limit, so the suite paces. */
  pacing = false;
  /** 429 `AUTH_THROTTLED` answers met, and the total wait they and the pacing cost (ms). */
  throttled = 0;
  waitedMs = 0;

  constructor(readonly limit: AuthFailureLimit | null) {}

  /** Records an answer: a 401 counts against the address. */
  answered(status: number, at: number): void {
    if (status === 401) this.failures.push(at);
  }

  /** The `Retry-After` (seconds) to wait for when `ex` is an `AUTH_THROTTLED` the suite should resend, else null. */
  retryAfter(status: number, json: unknown, headers: Record<string, string>): number | null {
    if (!this.limit || status !== 429) return null;
    if ((json as { error?: { code?: unknown } } | undefined)?.error?.code !== 'AUTH_THROTTLED') return null;
    const raw = headers['retry-after'];
    if (raw === undefined || !/^\d+$/.test(raw)) return null;
    const s = Number(raw);
    // a wait the contract does not allow is judged, not obeyed
    return s >= 1 && s <= this.limit.windowSeconds ? s : null;
  }

  /** How long (ms) a request that may fail authentication waits before it is sent, at `now`. */
  delayBefore(now: number): number {
    if (!this.limit || !this.pacing) return 0;
    const span = this.limit.windowSeconds * 1000 + PACE_MARGIN_MS;
    while (this.failures.length && this.failures[0]! <= now - span) this.failures.shift();
    const over = this.failures.length - (this.limit.limit - 2);
    // fewer than limit - 1 within the window once the `over` oldest have left it
    return over <= 0 ? 0 : this.failures[over - 1]! + span - now;
  }
}
