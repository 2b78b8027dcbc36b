/**
 * Time as the model sees it: intervals of milliseconds on one merchant's clock (epoch ms on the
 * server, or any axis the caller keeps consistent). A caller that knows an instant exactly gives
 * `{ from: t, to: t }` and slack 0; the suite, which only knows that the server read its clock
 * between sending a request and reading its answer, gives that interval and its timer slack. Every
 * verdict is then 'yes', 'no' or 'maybe' (never a guess), and the model never reads a clock.
 */
import { stateMachine } from '../generated/contract.ts';

/** Milliseconds on a merchant's clock, `from` ≤ `to`. */
export interface Interval {
  readonly from: number;
  readonly to: number;
}

export type Verdict = 'yes' | 'no' | 'maybe';

/** The interval of one known instant. */
export function at(t: number): Interval {
  return { from: t, to: t };
}

/** `iv` moved by `ms`. */
export function shift(iv: Interval, ms: number): Interval {
  return { from: iv.from + ms, to: iv.to + ms };
}

/** Whether `t` may be an instant of `iv`, each side widened by `slack` ms. */
export function within(iv: Interval, t: number, slack = 0): boolean {
  return t >= iv.from - slack && t <= iv.to + slack;
}

/**
 * Has `limit` been reached at some instant of `now` (each side widened by `slack`)? 'yes' when
 * even the earliest instant of `now` is at or past the latest instant `limit` may be; 'no' when
 * even the latest instant of `now` is before the earliest `limit` may be; else 'maybe'.
 * The limit is reached AT its instant (`now >= limit`): ADR-010's expiry, the token's lifetime.
 */
export function reached(now: Interval, limit: Interval, slack = 0): Verdict {
  if (now.from - slack >= limit.to) return 'yes';
  if (now.to + slack < limit.from) return 'no';
  return 'maybe';
}

/** The payment window (s) in force: the spec's default unless the deployment configured another (`configurable`, ADR-010). */
export function paymentWindowSeconds(configured?: number): number {
  return configured ?? stateMachine.paymentWindow.defaultSeconds;
}

/** The largest payment window a deployment may configure (`maxSeconds`, ADR-010). */
export const maxPaymentWindowSeconds: number = stateMachine.paymentWindow.maxSeconds;

/**
 * When a transaction created within `createdAt` expires: exactly createdAt + the payment window
 * (ADR-010), so an interval as wide as the creation's.
 */
export function expiryOf(createdAt: Interval, windowSeconds: number): Interval {
  return shift(createdAt, windowSeconds * 1000);
}
