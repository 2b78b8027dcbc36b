/**
 * The webhook retry schedule (`x-webhook-delivery.retry`, ADR-005) as a listed delivery shows it:
 * the wait before each attempt, and the state and next due time each last attempt leaves. Pure:
 * times come in as numbers (ms on the server's clock, the sandbox clock for the sandbox list); the
 * slack for timers run late or early is a parameter.
 */
import { webhookDelivery } from '../generated/index.ts';

const RETRY = webhookDelivery.retry;
/** Added to an upper bound of the schedule: a loaded machine runs timers and requests late, never early (the suite and the proxy alike). */
export const LATE_SLACK_MS = 3000;
/** Taken from a lower bound: ISO timestamps have whole milliseconds, and timers may fire a millisecond early. */
export const EARLY_SLACK_MS = 3;
/** Attempts the schedule makes (the first one included). */
export const MAX_ATTEMPTS = RETRY.delaysSeconds.length;

/** Bounds (ms) of the wait before attempt `n + 1` after `n` failed attempts, the schedule run `compression` times faster. */
export function retryWindow(n: number, compression: number = RETRY.sandboxCompression): [number, number] {
  const d = (RETRY.delaysSeconds[n] ?? NaN) * 1000;
  return [(d * (1 - RETRY.jitter)) / compression, (d * (1 + RETRY.jitter)) / compression];
}

/** One listed delivery, as the schedule's rules read it (times in ms, null where the list shows null). */
export interface DeliveryView {
  state: string;
  nextAttemptAt: number | null;
  attempts: { at: number; status: number | null; durationMs: number }[];
}

export interface DeliveryProblem {
  /** Where in the delivery: `attempts[i].at`, `attempts`, `state`, `nextAttemptAt`. */
  path: string;
  message: string;
  expected: unknown;
  actual: unknown;
}

/** What an attempt's status makes of the delivery (ADR-005): delivered, disabled (410), or failed (retried). */
export function attemptOutcome(status: number | null): 'delivered' | 'disabled' | 'failed' {
  if (status !== null && status >= 200 && status < 300) return 'delivered';
  if (status !== null && (RETRY.disableOn as readonly number[]).includes(status)) return 'disabled';
  return 'failed';
}

/**
 * The schedule's rules one listed delivery breaks (none for a delivery that follows it): each
 * attempt no earlier than its delay after the one before; at most the schedule's attempts; after the
 * last attempt, the state it leaves — `delivered` after a 2xx, `disabled` after a 410, else
 * `pending` with the next attempt due within the schedule's delay (later when the receiver asked
 * with `Retry-After`), or `failed` once the schedule's attempts are spent. A delivery that was
 * redelivered (an attempt made at once, whatever its state) is judged by none of them. A failed
 * attempt may also leave the delivery parked (`no_endpoint`, `disabled`: the endpoint removed or
 * disabled meanwhile). `gapsFrom`: the first attempt whose wait to the next one is judged (a
 * reader that cannot tell whether a sandbox reset set the clock back between two attempts judges
 * only the waits after the last one it knows came after any reset; default 0, every wait).
 */
export function deliveryProblems(
  d: DeliveryView,
  o: { compression?: number; earlyMs: number; lateMs: number; redelivered: boolean; gapsFrom?: number },
): DeliveryProblem[] {
  const out: DeliveryProblem[] = [];
  const n = d.attempts.length;
  if (o.redelivered || n === 0) return out;
  const window = (i: number) => retryWindow(i, o.compression);
  for (let i = Math.max(1, (o.gapsFrom ?? 0) + 1); i < n; i++) {
    const gap = d.attempts[i]!.at - d.attempts[i - 1]!.at;
    const [lo, hi] = window(i);
    if (gap < lo - o.earlyMs)
      out.push({
        path: `attempts[${i}].at`,
        message: `attempt ${i + 1} came ${gap} ms after attempt ${i}; the schedule waits ${RETRY.delaysSeconds[i]} s ± ${RETRY.jitter * 100} % ÷ ${o.compression ?? RETRY.sandboxCompression} (${lo.toFixed(0)}–${hi.toFixed(0)} ms)`,
        expected: [lo, hi],
        actual: gap,
      });
  }
  if (n > MAX_ATTEMPTS)
    out.push({
      path: 'attempts',
      message: `${n} attempts listed; the schedule makes ${MAX_ATTEMPTS}`,
      expected: MAX_ATTEMPTS,
      actual: n,
    });
  const last = d.attempts[n - 1]!;
  const outcome = attemptOutcome(last.status);
  const ended = (state: string, why: string) => {
    if (d.state !== state || d.nextAttemptAt !== null)
      out.push({
        path: d.state !== state ? 'state' : 'nextAttemptAt',
        message: `state ${d.state}, nextAttemptAt ${d.nextAttemptAt === null ? 'null' : new Date(d.nextAttemptAt).toISOString()} after attempt ${n} ${why}`,
        expected: state,
        actual: d.state,
      });
  };
  if (outcome === 'delivered') ended('delivered', `answered ${last.status}`);
  else if (outcome === 'disabled') ended('disabled', `answered ${last.status}, which disables the endpoint`);
  else if (d.state === 'failed') {
    if (n < MAX_ATTEMPTS)
      out.push({
        path: 'state',
        message: `state failed after ${n} failed attempt(s); the schedule makes ${MAX_ATTEMPTS} before a delivery fails`,
        expected: 'pending',
        actual: d.state,
      });
  } else if (d.state === 'pending') {
    if (n >= MAX_ATTEMPTS || d.nextAttemptAt === null) {
      out.push({
        path: n >= MAX_ATTEMPTS ? 'state' : 'nextAttemptAt',
        message: `state pending, nextAttemptAt ${String(d.nextAttemptAt)} after attempt ${n} failed; ${n >= MAX_ATTEMPTS ? `the schedule's ${MAX_ATTEMPTS} attempts are spent: failed` : 'a pending delivery names its next attempt'}`,
        expected: n >= MAX_ATTEMPTS ? 'failed' : 'a due time',
        actual: n >= MAX_ATTEMPTS ? d.state : null,
      });
      return out;
    }
    const gap = d.nextAttemptAt - last.at;
    const [lo, hi] = window(n);
    // a Retry-After (429, 503) replaces the delay when longer: no upper bound then
    const retryAfter = last.status !== null && (RETRY.respectRetryAfter as readonly number[]).includes(last.status);
    const top = retryAfter ? Infinity : hi + last.durationMs + o.lateMs;
    if (gap < lo - o.earlyMs || gap > top)
      out.push({
        path: 'nextAttemptAt',
        message: `attempt ${n + 1} is due ${gap} ms after attempt ${n}; the schedule waits ${RETRY.delaysSeconds[n]} s ± ${RETRY.jitter * 100} % ÷ ${o.compression ?? RETRY.sandboxCompression} (${lo.toFixed(0)}–${hi.toFixed(0)} ms, plus the attempt's ${last.durationMs} ms${retryAfter ? ', or longer as a Retry-After asks' : ''})`,
        expected: [lo, hi],
        actual: gap,
      });
  }
  return out;
}
