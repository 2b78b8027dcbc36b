/**
 * The model's time, as intervals known from the observed clock: the suite cannot know when exactly
 * the server read its clock, only that it was between a request's sending and its answer's arrival
 * (performance.now()), on a sandbox clock advanced by known seconds. So a time verdict is 'yes',
 * 'no' or 'maybe'. Pure functions of the model state and an instant given by the caller.
 */
import type { Interval } from '../model/index.ts';
import type { ModelState, Who } from './model-state.ts';

/** Allowance (ms) for timer and clock granularity on both sides of an interval: the slack the suite gives the model. */
export const SLACK_MS = 25;

export type { Verdict } from '../model/index.ts';

/**
 * The model's interval of an exchange made in [sentAt, receivedAt] with `advanced` seconds advanced
 * on the merchant's sandbox clock: performance.now() ms plus the advance, an axis on which the
 * merchant's clock runs as the server's does (only differences on it mean anything).
 */
export function during(ex: { sentAt: number; receivedAt: number }, advanced: number): Interval {
  return { from: ex.sentAt + advanced * 1000, to: ex.receivedAt + advanced * 1000 };
}

/** When something an exchange created was created, on the axis of `during`. */
export function createdDuring(o: { sentAt: number; receivedAt: number; advAtCreation: number }): Interval {
  return during(o, o.advAtCreation);
}

/** Bounds of the age (ms, on the merchant's sandbox clock) at `now` of something created in [sentAt, receivedAt]. */
export function age(
  s: ModelState,
  o: { sentAt: number; receivedAt: number; advAtCreation: number },
  who: Who,
  now: number,
): [number, number] {
  const adv = (s.advanced[who] - o.advAtCreation) * 1000;
  return [now - o.receivedAt + adv - SLACK_MS, now - o.sentAt + adv + SLACK_MS];
}

/** The main merchant's sandbox time (ms since the epoch) at `perf`, with `advanced` seconds advanced since the setup. */
export function sandboxTimeAt(s: ModelState, perf: number, advanced: number): number | undefined {
  return s.clockAnchor ? s.clockAnchor.serverMs + (perf - s.clockAnchor.perf) + advanced * 1000 : undefined;
}

/**
 * The interval (ms since the epoch, main merchant's sandbox clock) within which the server read its
 * clock while it handled an exchange made in [sentAt, receivedAt] with `advanced` seconds advanced:
 * widened by the anchor's uncertainty; a timestamp may be truncated to the second, never rounded
 * up. Undefined outside the sandbox profile (the suite does not know the server's clock).
 */
export function instantOf(
  s: ModelState,
  ex: { sentAt: number; receivedAt: number },
  advanced = s.advanced.main,
): [number, number] | undefined {
  const a = s.clockAnchor;
  if (!a) return undefined;
  const lo = sandboxTimeAt(s, ex.sentAt, advanced)! - a.halfWidthMs - SLACK_MS;
  const hi = sandboxTimeAt(s, ex.receivedAt, advanced)! + a.halfWidthMs + SLACK_MS;
  return [Math.floor(lo / 1000) * 1000, hi];
}

/** The model's interval of the instant `now` (performance.now()) on `who`'s clock axis (`during`). */
export function at(s: ModelState, who: Who, now: number): Interval {
  return during({ sentAt: now, receivedAt: now }, s.advanced[who]);
}
