/**
 * The contract's time limits probed from inside, at sub-second resolution (sandbox profile): the
 * token lifetime, the payment window, the rate-limit window and a webhook attempt's due time. The
 * sandbox clock moves by milliseconds (ADR-085), so the suite puts the merchant's clock just before
 * each limit and at it; the expected answer is the model's verdict on the real interval of the
 * exchange (the server may read its clock anywhere in it), so a correct server never fails, and
 * one whose limit is off by less than a second is found.
 *
 * Here: how far to move the clock (pure, from what the model knows: an age known within [lo, hi]
 * and the recent round trips), the side of a limit an exchange certainly fell on, and the edges
 * a run probed (its coverage). Each limit is read from the contract where its verdict is made
 * (`model/token.ts`, `model/time.ts`'s expiry, `model/rate.ts`, `model/retry.ts`).
 */
import type { Interval } from '../model/index.ts';
import type { ModelState } from './model-state.ts';
import { SLACK_MS } from './model-time.ts';

/** The time limits the contract states, each probed just inside and at its edge. */
export const EDGES = ['token-lifetime', 'payment-window', 'rate-limit-window', 'webhook-attempt-due'] as const;
export type Edge = (typeof EDGES)[number];
export type Side = 'inside' | 'at';

/** The resolution claimed: an edge counts as probed when the exchange fell on its side within less than this (ms). */
export const RESOLUTION_MS = 1000;

/** Why the core profile cannot probe each edge: it has no clock to move, and real time would take this long. */
export const NOT_PROBED_IN_CORE: Record<Edge, string> = {
  'token-lifetime': 'a token lives x-token-lifetime-seconds of real time without the sandbox clock',
  'payment-window': 'the payment window passes only in real time without the sandbox clock',
  'rate-limit-window':
    "a spent window ends only in real time without the sandbox clock (its waits are still judged against the window's start)",
  'webhook-attempt-due': 'webhook attempts and their due times are read from the sandbox deliveries list',
};

/** The least margin (ms) before a limit: a loaded machine's pauses (a timer, a collection) seldom last longer. */
export const MIN_MARGIN_MS = 250;

/**
 * The margin (ms) left before a limit for a probe from inside: the time until the probe's answer
 * arrives — the clock's advance and the probe itself, a round trip each — with room for slow ones
 * and the suite's slack, at least MIN_MARGIN_MS, never near a second (the resolution claimed).
 */
export function insideMarginMs(s: Pick<ModelState, 'roundTripMs'>): number {
  return Math.min(RESOLUTION_MS - 200, Math.max(MIN_MARGIN_MS, SLACK_MS + 6 * s.roundTripMs + 50));
}

/**
 * The milliseconds that put an age known within [lo, hi] now (ms, slack included) just before
 * `limitMs` when the next answer arrives, `margin` ms early: `limitMs − hi − margin`.
 */
export function msJustBefore(limitMs: number, hi: number, margin: number): number {
  return Math.floor(limitMs - hi - margin);
}

/** The milliseconds that put an age known within [lo, hi] now at or past `limitMs` for any later request: `limitMs − lo`, rounded up. */
export function msAt(limitMs: number, lo: number): number {
  return Math.ceil(limitMs - lo) + 1;
}

/**
 * The side of `limit` an exchange during `during` certainly fell on, within the resolution: 'inside'
 * when all of it was before the limit's earliest instant (by more than `slack`, by less than a
 * second), 'at' when all of it was at or past the limit's latest (by less than a second), else null.
 */
export function sideOf(limit: Interval, during: Interval, slack = SLACK_MS): Side | null {
  if (during.to + slack < limit.from && limit.from - during.to < RESOLUTION_MS) return 'inside';
  if (during.from - slack >= limit.to && during.from - limit.to < RESOLUTION_MS) return 'at';
  return null;
}

/**
 * Records that `edge` was probed on the side `during` certainly fell on, if it fell within the
 * resolution; `slack` 0 for an interval that already holds it (a clock read through the anchor).
 */
export function recordEdge(s: ModelState, edge: Edge, limit: Interval, during: Interval, slack = SLACK_MS): void {
  const side = sideOf(limit, during, slack);
  if (side) s.coverage.edges.add(`${edge} ${side}`);
}

/** The edges of a profile as a run's coverage: probed (edge and side), missing, and those the profile cannot probe, with why. */
export function edgeCoverage(s: ModelState): { probed: string[]; missing: string[]; notProbed: string[] } {
  if (!s.sandbox) return { probed: [], missing: [], notProbed: EDGES.map((e) => `${e} (${NOT_PROBED_IN_CORE[e]})`) };
  const all = EDGES.flatMap((e) => (['inside', 'at'] as const).map((side) => `${e} ${side}`));
  return { probed: all.filter((k) => s.coverage.edges.has(k)), missing: all.filter((k) => !s.coverage.edges.has(k)), notProbed: [] };
}
