/**
 * A1: create a checkout session. The expectations of A1's rules are computed here: the body's
 * answer (amount-range, amount-consistency, ADR-057) and the rate limit (a1-rate-limit, ADR-006:
 * the model's count of requests per key and window, the 429 and its wait), with the commands that
 * check them (CreateSession, RateLimitBurst, OtherKeySession).
 */
import { tokenLifetimeSeconds, type ErrorCode } from '../../generated/index.ts';
import { bodyVerdict } from '../../judge/request.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { centimesOf, centimesToNumber } from '../../lib/money.ts';
import type { ModelState } from '../model-state.ts';
import { SLACK_MS, during, type Verdict } from '../model-time.ts';
import { waitRange, windowEnd } from '../../model/index.ts';
import { recordEdge } from '../edges.ts';
import type { Contract } from '../../judge/contract.ts';
import type { Who, World } from '../world.ts';

type Json = Record<string, unknown>;

/** What the contract answers a request body: the validation code (ADR-057), AMOUNT_MISMATCH, the business rules' codes. */
export interface BodyVerdict {
  /** The one validation code that answers (empty: the body passes validation). */
  validation: string[];
  /** amount-consistency fails (only judged once validation passes). */
  mismatch: boolean;
  /** The business rules' codes, in their order (e.g. B1's AMOUNT_OUT_OF_RANGE). */
  business: string[];
}

/**
 * The answer the contract gives a request body, by the judge's `bodyVerdict` (judge/request.ts, the
 * one classification the judge applies to every request it sees): among the codes of its failing
 * members (the schema's, then a validation `x-amount-range` the schema cannot check, A1's
 * INVALID_AMOUNT), the one first in `x-error-precedence` (ADR-057); a body that passes validation
 * is then judged by amount-consistency (AMOUNT_MISMATCH) and the business rules (B1's
 * AMOUNT_OUT_OF_RANGE).
 */
export function classifyBody(contract: Contract, opId: string, body: unknown): BodyVerdict {
  const v = bodyVerdict(contract, opId, body);
  return { validation: v.validation === null ? [] : [v.validation], mismatch: v.mismatch !== null, business: v.business };
}

// ---- a1-rate-limit (ADR-006): the model's window per key, the 429 it expects, the headers it reads ----
// The window is data in the model (`ModelState.rate`, bounds in performance.now() ms less the seconds
// the sandbox clock was advanced), kept by the pure functions below; the caller gives the instant.

/** What the rate model reads of an answer. */
export interface RateAnswer {
  opId: string;
  status: number;
  sentAt: number;
  receivedAt: number;
  responseHeaders: Record<string, string>;
}

/** A verdict check (the Real side's): a false `ok` is a finding. */
export type Check = (ok: boolean, op: string, path: string, msg: string, expected?: unknown, actual?: unknown) => void;

/**
 * A1's rate limit as the contract states it: the operation's `x-rate-limit`
 * (components/facts/SessionRateLimit.yaml), from the document the run judges by.
 */
export function rateLimit(s: Pick<ModelState, 'contract'>): { limit: number; windowSeconds: number } {
  return s.contract.rateLimits.createSession!;
}

/**
 * Will the next counted A1 request of `who`, sent at `now`, be refused with 429? The window's count
 * (bounds) against the limit; forgets a window that certainly ended. Per key (`keyedOn`).
 */
export function rateLimited(s: ModelState, who: Who, now: number): Verdict {
  const r = s.rate[who];
  const adv = s.advanced[who] * 1000;
  if (r.endHi - adv <= now) {
    r.usedLo = 0;
    r.usedHi = 0;
    r.endLo = -Infinity;
    r.endHi = Infinity;
    r.start = undefined;
  } else if (r.endLo - adv <= now) r.usedLo = 0;
  const limit = rateLimit(s).limit;
  return r.usedLo >= limit ? 'yes' : r.usedHi < limit ? 'no' : 'maybe';
}

/** After an A1 answer counted against the key: sync from RateLimit-* headers when present, checked against the model. */
export function countRate(s: ModelState, who: Who, ex: RateAnswer, check: Check): void {
  const r = s.rate[who];
  const { limit, windowSeconds } = rateLimit(s);
  if (ex.status === 429) s.rate429++;
  const rem = ex.responseHeaders['ratelimit-remaining'];
  const reset = ex.responseHeaders['ratelimit-reset'];
  const lim = ex.responseHeaders['ratelimit-limit'];
  if (lim !== undefined)
    check(Number(lim) === limit, ex.opId, 'header RateLimit-Limit', `RateLimit-Limit ${lim}, x-rate-limit says ${limit}`, limit, lim);
  if (rem !== undefined && reset !== undefined) {
    const used = limit - Number(rem);
    if (ex.status !== 429) {
      check(
        used >= r.usedLo + 1,
        ex.opId,
        'header RateLimit-Remaining',
        `RateLimit-Remaining ${rem}, the model counted at least ${r.usedLo + 1} requests in this window`,
        limit - r.usedLo - 1,
        Number(rem),
      );
      check(
        used <= r.usedHi + 1,
        ex.opId,
        'header RateLimit-Remaining',
        `RateLimit-Remaining ${rem}, the model counted at most ${r.usedHi + 1} requests in this window`,
        limit - r.usedHi - 1,
        Number(rem),
      );
    } else {
      check(Number(rem) === 0, ex.opId, 'header RateLimit-Remaining', `429 with RateLimit-Remaining ${rem}`, 0, Number(rem));
    }
    check(
      Number(reset) <= windowSeconds,
      ex.opId,
      'header RateLimit-Reset',
      `RateLimit-Reset ${reset} exceeds the ${windowSeconds} s window`,
    );
    r.usedLo = r.usedHi = Math.min(used, limit);
    const adv = s.advanced[who] * 1000;
    r.endLo = ex.sentAt + (Number(reset) - 1) * 1000 + adv - SLACK_MS;
    r.endHi = ex.receivedAt + (Number(reset) + 1) * 1000 + adv + SLACK_MS;
    // last: a finding stops the command, and the model's count above must hold this answer first
    checkWaitFromStart(s, who, ex, used, check);
  } else {
    r.usedLo = Math.min(r.usedLo + 1, limit);
    r.usedHi = Math.min(r.usedHi + 1, limit);
  }
}

/**
 * The wait against the real start of the window (ADR-006: the window starts at the key's first
 * counted request). An answer that is not a 429 and counts the first request of its window
 * (`RateLimit-Remaining` limit − 1) starts it within its own exchange's interval; every later
 * answer's `RateLimit-Reset` (a 429's `Retry-After` and `retry_after` equal it, `sendSession`) is
 * then the seconds left from that start at the instant the server counted it (the model's
 * `waitRange`, SLACK_MS each side) — not a whole window from the request itself, nor from a later one.
 * A start the window certainly outlived is forgotten (a request the server may have counted without
 * headers may have started the next window).
 */
function checkWaitFromStart(s: ModelState, who: Who, ex: RateAnswer, used: number, check: Check): void {
  const r = s.rate[who];
  const { windowSeconds } = rateLimit(s);
  const adv = s.advanced[who] * 1000;
  const now = { from: ex.sentAt + adv, to: ex.receivedAt + adv };
  if (ex.status !== 429 && used === 1) r.start = now;
  else if (r.start && now.from - SLACK_MS >= r.start.to + windowSeconds * 1000) r.start = undefined;
  if (!r.start) return;
  // the window ends where the contract says, its start + windowSeconds, not where the answers' waits put it
  const end = windowEnd(r.start, windowSeconds);
  r.endLo = end.from - SLACK_MS;
  r.endHi = end.to + SLACK_MS;
  const reset = Number(ex.responseHeaders['ratelimit-reset']);
  const { min, max } = waitRange(r.start, now, windowSeconds, SLACK_MS);
  check(
    reset >= min && reset <= max,
    ex.opId,
    'header RateLimit-Reset',
    `RateLimit-Reset ${reset} s, the window began with the key's first counted request ${((now.to - r.start.from) / 1000).toFixed(1)} s before: ${min === max ? min : `${min}..${max}`} s were left`,
    min === max ? min : `${min}..${max}`,
    reset,
  );
}

/** The answers an A1 request may get: its body's own (`normal`), or 429 RATE_LIMIT_EXCEEDED when the window is (maybe) spent. */
export function withRateLimit(limited: Verdict, normal: Outcome[]): Outcome[] {
  return limited === 'yes' ? [refusal('RATE_LIMIT_EXCEEDED')] : limited === 'no' ? normal : [...normal, refusal('RATE_LIMIT_EXCEEDED')];
}

/** A request that the server may or may not have counted (refused before routing). */
export function countRateMaybe(s: ModelState, who: Who, ex: RateAnswer, check: Check): void {
  if (ex.status === 429 || ex.responseHeaders['ratelimit-remaining'] !== undefined) return countRate(s, who, ex, check);
  const r = s.rate[who];
  r.usedHi = Math.min(r.usedHi + 1, rateLimit(s).limit);
}

/**
 * Core profile: the random search (after the coverage tour) stops sending A1 requests once the
 * window's budget is spent, the tour's requests counted; only the sandbox clock could give more.
 * Reads the model's count of A1 requests sent.
 */
export function a1Reserved(s: ModelState): boolean {
  return !s.sandbox && !s.inTour && s.a1Sent >= rateLimit(s).limit;
}

/** Sends one A1 request and checks it against the rate-limit model and the body's classification; a created session is kept in the model for later commands unless `keep` is false. */
export async function sendSession(
  m: Model,
  w: World,
  body: Json,
  who: Who = 'main',
  keep = true,
): Promise<'limited' | 'created' | 'refused'> {
  // the window's start as known before the model forgets a window that certainly ended (the edge probed)
  const start = w.state.rate[who].start;
  const limited = rateLimited(w.state, who, performance.now());
  const cls = classifyBody(w.contract, 'createSession', body);
  const normal: Outcome[] = cls.validation.map((code) => refusal(code as ErrorCode));
  if (!normal.length && cls.mismatch) normal.push(refusal('AMOUNT_MISMATCH'));
  if (!normal.length) normal.push(w.success('createSession'));
  const rl = rateLimit(w.state);
  const ex = await w.client.call('createSession', { headers: w.auth('createSession', w.key(who)), body });
  w.expectOutcome(ex, withRateLimit(limited, normal));
  if (start && who === 'main' && w.sandbox)
    recordEdge(w.state, 'rate-limit-window', windowEnd(start, rl.windowSeconds), during(ex, w.state.advanced[who]));
  countRate(w.state, who, ex, (...a) => w.check(...a));
  if (ex.status === 429) {
    const err = (ex.json as { error: Json }).error;
    // ADR-006: one wait, the rest of the window, in the body and both headers.
    const wait = err.retry_after;
    w.check(
      typeof wait === 'number' && Number.isInteger(wait) && wait >= 1 && wait <= rl.windowSeconds,
      'createSession',
      '$.error.retry_after',
      `retry_after ${String(wait)} is not a wait within the ${rl.windowSeconds} s window`,
      `1..${rl.windowSeconds}`,
      wait,
    );
    for (const [header, name] of [
      ['retry-after', 'Retry-After'],
      ['ratelimit-reset', 'RateLimit-Reset'],
    ] as const) {
      w.check(
        ex.responseHeaders[header] === String(wait),
        'createSession',
        `header ${name}`,
        `${name} ${ex.responseHeaders[header]} differs from retry_after ${String(wait)}`,
        wait,
        ex.responseHeaders[header],
      );
    }
    return 'limited';
  }
  // the other merchant's sessions are not driven further (payments and verifications are the main merchant's)
  if (!w.succeeded(ex) || who !== 'main') return w.succeeded(ex) ? 'created' : 'refused';
  const rec = ex.json as Json;
  const token = (w.cfg.variant === 1 ? rec.token : rec.session_token) as string;
  if (w.cfg.variant === 1) {
    const exp = Date.parse(rec.expiresAt as string);
    w.check(Number.isFinite(exp), 'createSession', '$.expiresAt', 'expiresAt is not a date');
    w.checkInstant(ex, '$.expiresAt', rec.expiresAt, 'the end of the token lifetime', tokenLifetimeSeconds * 1000);
  }
  if (!keep) return 'created';
  m.sessions.push({
    token,
    who: 'main',
    total: centimesToNumber(centimesOf(body.total)!),
    sentAt: ex.sentAt,
    receivedAt: ex.receivedAt,
    advAtCreation: w.state.advanced.main,
  });
  return 'created';
}

/** @checks a1-required-fields, amount-range, a1-currency, a1-items, amount-consistency, a1-session-response, ADR-012, ADR-057 */
export class CreateSession implements Cmd {
  /** `keep`: the created session joins the model for later commands (a probe's need not). */
  constructor(
    readonly body: Json,
    readonly label: string,
    readonly keep = true,
  ) {}
  check(m: Readonly<Model>): boolean {
    return !a1Reserved(m.state);
  }
  async run(m: Model, w: Real): Promise<void> {
    await sendSession(m, w, this.body, 'main', this.keep);
  }
  toString(): string {
    return `createSession(${this.label})`;
  }
}

/**
 * Sends A1 requests with the main key until one is answered 429 (true); false when `limit + 2`
 * requests counted in one window got none. A window may end while they run (a short
 * x-rate-limit window, a slow server): when an answer counts the first request of a new window,
 * the count starts afresh in it (at most three times).
 */
export async function spendWindow(m: Model, w: World, body: Json, keep: boolean): Promise<boolean> {
  const { limit } = rateLimit(w.state);
  let inWindow = 0;
  for (let fresh = 0; inWindow <= limit + 1;) {
    if ((await sendSession(m, w, body, 'main', keep)) === 'limited') return true;
    inWindow++;
    const r = w.state.rate.main;
    if (inWindow > 1 && r.usedLo === 1 && r.usedHi === 1 && fresh < 3) {
      inWindow = 1;
      fresh++;
    }
  }
  return false;
}

/**
 * A1 until the window's limit is passed: exactly the (limit+1)-th request gets 429 with retry_after.
 * @checks a1-rate-limit, ADR-006
 */
export class RateLimitBurst implements Cmd {
  constructor(readonly body: Json) {}
  check(m: Readonly<Model>): boolean {
    // Each burst costs a window's worth of requests: at most two per suite run in the random search;
    // the tour's own burst always runs (its window edges are checked after it).
    return m.state.inTour || m.state.bursts < 2;
  }
  async run(m: Model, w: Real): Promise<void> {
    w.state.bursts++;
    const limit = rateLimit(w.state).limit;
    // The search's burst keeps none of its sessions for later commands: a run that pays or verifies
    // one would fail only after a burst, which the shrinker's replays skip (the budget is spent).
    if (await spendWindow(m, w, this.body, w.state.inTour)) {
      w.check(
        rateLimited(w.state, 'main', performance.now()) === 'yes',
        'createSession',
        '$',
        'a 429 came although the model has not counted the limit',
      );
      return;
    }
    w.check(false, 'createSession', '$', `no 429 after ${limit + 2} requests in one window`, 429, 200);
  }
  toString(): string {
    return 'rateLimitBurst()';
  }
}

/**
 * Waits until the main key's A1 window is more than a second old (its start the model's `start`,
 * its sandbox clock's moves counted): within a window's first second every wait rounds up to the
 * whole window, so an answer whose wait counts from the request itself (a whole window each time)
 * cannot be told from a right one. The tour's A1 checks follow it; in the core profile, whose clock
 * cannot move, the probes' window is otherwise a second old there only when the run is slow. Waits
 * at most that second, often nothing; does nothing when no start is known (a fresh window).
 * @checks a1-rate-limit, ADR-006
 */
export class AgedRateWindow implements Cmd {
  check(m: Readonly<Model>): boolean {
    return m.state.inTour;
  }
  async run(_m: Model, w: Real): Promise<void> {
    const start = w.state.rate.main.start;
    if (!start) return;
    const age = performance.now() + w.state.advanced.main * 1000 - start.to;
    // the wait range is whole seconds either side of the slack: past 1 s + twice the slack, a whole window is out of it
    const needed = 1000 + 2 * SLACK_MS + 50;
    // an interrupt ends the wait; the next request then stops the run
    if (age < needed) await w.client.pause(needed - age).catch(() => undefined);
  }
  toString(): string {
    return 'agedRateWindow()';
  }
}

/**
 * After the main merchant's window is spent, one A1 request with the other merchant's key: the
 * limit is per key (`x-rate-limit` keyedOn), so it is answered as usual, never 429 for the main
 * merchant's spending. The suite sends the other key's A1 requests only here (one per run), so its
 * window is not spent unless another client of that test key spends it.
 * @checks a1-rate-limit
 */
export class OtherKeySession implements Cmd {
  constructor(readonly body: Json) {}
  check(m: Readonly<Model>): boolean {
    return m.state.inTour;
  }
  async run(m: Model, w: Real): Promise<void> {
    const spent = rateLimited(w.state, 'main', performance.now()) === 'yes';
    const r = await sendSession(m, w, this.body, 'other');
    if (spent)
      w.check(
        r !== 'limited',
        'createSession',
        '$',
        "the other merchant's A1 request got 429 while only the main merchant's window was spent (the limit is per key)",
        'not 429',
        429,
      );
  }
  toString(): string {
    return "createSession(other merchant's key, the main key's window spent)";
  }
}
