/**
 * The expiry rule (ADR-010): a PENDING transaction expires when its payment window passes,
 * `createdAt` + the window of `x-state-machine` `paymentWindow`, as EXPIRED with `transaction.expired`
 * dated the window's end. Its expectation is computed here, for every command that reads a
 * transaction: the statuses an answer may show (`possibleStatuses`), the expiries that certainly
 * happened (`settle`), the instant an expired record and event must carry (`checkExpiryInstant`).
 * Time is the model's intervals (`model-time.ts`: the age of a creation, whether it reached a
 * limit), so a verdict is 'yes', 'no' or 'maybe'; the functions are pure, the caller gives the instant.
 *
 * Sandbox: AdvanceClock advances the merchant's clock, by milliseconds (ADR-085) for the edges.
 * Targets put it just before a transaction's payment window ends (it must still be PENDING) and
 * just at it (EXPIRED), just before and at a session token's lifetime's end, just before the end of
 * a spent rate-limit window and at it: less than a second from the edge (`edges.ts`: the margin
 * before an edge is the time the next answer takes to come). Every edge comes from the contract's
 * facts (payment window, `x-token-lifetime-seconds`, `x-rate-limit`) and the model's time
 * intervals, never typed.
 */
import { INITIAL } from '../../model/index.ts';
import { tokenLifetimeSeconds } from '../../generated/index.ts';
import * as model from '../../model/index.ts';
import type { Exchange } from '../http.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { transition } from '../model-events.ts';
import type { ModelState, Session, Tx, Who } from '../model-state.ts';
import { rateLimit } from './createSession.ts';
import { SLACK_MS, at as atPerf, createdDuring, during as duringIv, instantOf, type Verdict } from '../model-time.ts';
import { insideMarginMs, msAt, msJustBefore, recordEdge } from '../edges.ts';

/**
 * The payment window (s) the run judges by: the spec's `paymentWindow` default (`x-state-machine`),
 * unless the server was configured with another (`configurable`; the run's `--payment-window`).
 */
export function paymentWindowSeconds(s: Pick<ModelState, 'paymentWindowSeconds'>): number {
  return model.paymentWindowSeconds(s.paymentWindowSeconds);
}

/** When the payment window of `tx` ends, on the model's axis (`createdDuring`): its creation's interval plus the window. */
export function expiresAt(s: ModelState, tx: Tx): model.Interval {
  return model.expiryOf(createdDuring(tx), paymentWindowSeconds(s));
}

/** Has the payment window of `tx` passed at `now` (performance.now())? The model's expiry guard, with the suite's slack. */
export function windowPassed(s: ModelState, tx: Tx, now: number): Verdict {
  return model.expiredBy(atPerf(s, tx.who, now), expiresAt(s, tx), SLACK_MS);
}

/** Applies the expiry that certainly happened by `now` (now >= createdAt + window). */
export function settle(s: ModelState, tx: Tx, now: number): void {
  if (model.EXPIRY.from.includes(tx.status) && windowPassed(s, tx, now) === 'yes') transition(s, tx, model.EXPIRY.id, now);
}

/**
 * Statuses an answer to an exchange made in [sentAt, receivedAt] (default: at `at`) may show:
 * PENDING may already be EXPIRED near the window's end. The expiry is certain only if it passed
 * before the request was sent (then applied to the model, as seen at `at`), and excluded only if it
 * had not passed when the answer came.
 */
export function possibleStatuses(
  s: ModelState,
  tx: Tx,
  at: number,
  during: { sentAt: number; receivedAt: number } = { sentAt: at, receivedAt: at },
): string[] {
  if (model.EXPIRY.from.includes(tx.status) && windowPassed(s, tx, during.sentAt) === 'yes') transition(s, tx, model.EXPIRY.id, at);
  const now = duringIv(during, s.advanced[tx.who]);
  if (s.sandbox && tx.who === 'main') recordEdge(s, 'payment-window', expiresAt(s, tx), now);
  return model.statusesDuring([tx.status], now, expiresAt(s, tx), SLACK_MS);
}

/**
 * A partner transaction read back (B2, through its own merchant) after a request that must have
 * left it as it was (a refused or unserved cancel): the answer, the status it shows, and the
 * statuses that may show — those `before` held when the request was sent, or any it may have
 * reached on its own (expiry) by the read.
 */
export async function readBack(w: Real, tx: Tx, before: readonly string[]): Promise<{ ex: Exchange; status: string; allowed: string[] }> {
  const ex = await w.client.call('getPartnerTransaction', {
    pathParams: { transactionId: tx.id },
    headers: w.auth('getPartnerTransaction', w.key(tx.who)),
  });
  w.expectOutcome(ex, [w.success(ex.opId)]);
  const status = (ex.json as { status: string }).status;
  const allowed = [...new Set([...before, ...possibleStatuses(w.state, tx, performance.now(), ex)])];
  return { ex, status, allowed };
}

/**
 * The interval within which the payment window of a main-merchant transaction ended: its creation's
 * interval plus the window (ADR-010: it expires exactly at createdAt + window). Undefined outside the
 * sandbox profile or for the other merchant (its clock is not anchored).
 */
export function expiryInstant(s: ModelState, tx: Tx): [number, number] | undefined {
  if (tx.who !== 'main') return undefined;
  const iv = instantOf(s, tx, tx.advAtCreation);
  if (!iv) return undefined;
  const e = model.expiryOf({ from: iv[0], to: iv[1] }, paymentWindowSeconds(s));
  return [e.from, e.to];
}

/**
 * A timestamp that must carry the instant a transaction expired (a record's `updatedAt`, an event's
 * `expiredAt`): the end of its payment window on the sandbox clock (`expiryInstant`), never the
 * time a read noticed it.
 * @checks expiry
 */
export function checkExpiryInstant(w: Real, tx: Tx, op: string, path: string, value: unknown): void {
  const iv = expiryInstant(w.state, tx);
  const created = tx.who === 'main' ? instantOf(w.state, tx, tx.advAtCreation) : undefined;
  if (!iv || !created) return;
  const t = typeof value === 'string' ? Date.parse(value) : NaN;
  w.check(
    model.expiryInstantAllowed({ from: created[0], to: created[1] }, paymentWindowSeconds(w.state), t),
    op,
    path,
    `${path.slice(2)} ${String(value)} of expired transaction ${tx.id} is not the instant its payment window ended: between ${new Date(iv[0]).toISOString()} and ${new Date(iv[1]).toISOString()} on the merchant's sandbox clock (created then + ${paymentWindowSeconds(w.state)} s, ADR-010)`,
    [new Date(iv[0]).toISOString(), new Date(iv[1]).toISOString()],
    value,
  );
}

export type AdvanceTarget =
  | 'seconds'
  | 'just-before-expiry'
  | 'at-expiry'
  | 'just-before-token-lifetime'
  | 'past-token-lifetime'
  | 'just-before-rate-window'
  | 'past-rate-window';

/** @checks expiry, ADR-010, ADR-020 */
export class AdvanceClock implements Cmd {
  constructor(
    readonly target: AdvanceTarget,
    readonly seconds: number,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    if (!m.state.sandbox) return false;
    if (this.target === 'just-before-expiry' || this.target === 'at-expiry')
      return m.txs.some((t) => t.status === INITIAL && t.who === 'main');
    if (this.target === 'past-token-lifetime' || this.target === 'just-before-token-lifetime') return m.sessions.length > 0;
    return true;
  }
  async run(m: Model, w: Real): Promise<void> {
    const W = paymentWindowSeconds(w.state) * 1000;
    const L = tokenLifetimeSeconds * 1000;
    const margin = insideMarginMs(w.state);
    let ms = this.seconds * 1000;
    const tx = pick(
      m.txs.filter((t) => t.status === INITIAL && t.who === 'main'),
      this.idx,
    );
    if (this.target === 'just-before-expiry' || this.target === 'at-expiry') {
      const [lo, hi] = w.age(tx!, 'main');
      ms = this.target === 'just-before-expiry' ? msJustBefore(W, hi, margin) : msAt(W, lo);
    } else if (this.target === 'past-token-lifetime') {
      ms = msAt(L, w.age(tokenSession(m, this.idx)!, 'main')[0]);
    } else if (this.target === 'just-before-token-lifetime') {
      ms = msJustBefore(L, w.age(tokenSession(m, this.idx)!, 'main')[1], margin);
    } else if (this.target === 'just-before-rate-window') {
      // the earliest end of the main key's window (model), less the margin; nothing when no window is known
      const end = w.state.rate.main.endLo - w.state.advanced.main * 1000 - performance.now();
      ms = Number.isFinite(end) ? Math.floor(end - margin) : 0;
    } else if (this.target === 'past-rate-window') {
      ms = msPastRateWindow(w.state);
    }
    if (ms < 1) return;
    await advanceMainClockMs(w, ms);
    if (tx && tx.kind === 'partner' && this.target === 'just-before-expiry') {
      const r = await w.client.call('getPartnerTransaction', {
        pathParams: { transactionId: tx.id },
        headers: w.auth('getPartnerTransaction', w.cfg.apiKey),
      });
      w.expectOutcome(r, [w.success(r.opId)]);
      const st = (r.json as { status: string }).status;
      const allowed = possibleStatuses(w.state, tx, performance.now(), r);
      w.check(
        allowed.includes(st),
        'getPartnerTransaction',
        '$.status',
        `just before the payment window ends the status is ${st}`,
        allowed,
        st,
      );
      w.observe(tx, st);
    }
  }
  toString(): string {
    return this.target === 'seconds' ? `advanceClock(${this.seconds} s)` : `advanceClock(${this.target}, #${this.idx})`;
  }
}

/**
 * The milliseconds that take a merchant's clock just past the latest end of its key's known
 * rate-limit window (so a window that lasts longer, by a second or less, is found), else a whole window.
 */
export function msPastRateWindow(s: ModelState, who: Who = 'main'): number {
  const end = s.rate[who].endHi - s.advanced[who] * 1000 - performance.now();
  return Number.isFinite(end) ? Math.ceil(end) + 1 : rateLimit(s).windowSeconds * 1000;
}

/** The session whose token a token-lifetime target aims at: the one A2 verifies as checkout transaction `idx` (`VerifyByToken`), else the `idx`-th. */
function tokenSession(m: Model, idx: number): Session | undefined {
  return (
    pick(
      m.txs.filter((t) => t.kind === 'checkout'),
      idx,
    )?.session ?? pick(m.sessions, idx)
  );
}

/** A clock answer's offset in seconds, to the millisecond (ADR-085); whole seconds from a clock that only gives those (its schema judges it). */
export function clockOffsetOf(json: unknown): number {
  return (model.clockOffsetMs(json as Record<string, unknown>) ?? NaN) / 1000;
}

/** Advances the main merchant's sandbox clock by `secs` (≥ 1) whole seconds: `advanceClockMs`. */
export async function advanceMainClock(w: Real, secs: number): Promise<void> {
  await advanceClockMs(w, 'main', secs * 1000);
}

/** `advanceClockMs` of the main merchant. */
export function advanceMainClockMs(w: Real, ms: number): Promise<Exchange> {
  return advanceClockMs(w, 'main', ms);
}

/**
 * Advances a merchant's sandbox clock by `ms` (≥ 1) milliseconds (`seconds` when they are whole
 * ones, else `milliseconds`, ADR-085); each merchant has its own clock. The model's offset follows
 * (`advanced`); the main merchant's answer is checked against it (its offset is known from the
 * setup), and the merchant's transactions whose payment window certainly passed expire in the model.
 * @checks ADR-085
 */
export async function advanceClockMs(w: Real, who: Who, ms: number): Promise<Exchange> {
  const ex = await w.client.call('sandboxAdvanceClock', {
    headers: w.auth('sandboxAdvanceClock', w.key(who)),
    body: ms % 1000 === 0 ? { seconds: ms / 1000 } : { milliseconds: ms },
  });
  w.expectOutcome(ex, [w.success(ex.opId)]);
  const before = w.state.advanced[who];
  w.state.advanced[who] += ms / 1000;
  const clock = ex.json as { offsetSeconds: unknown; offsetMilliseconds: unknown; now?: unknown };
  if (who === 'main') {
    // the clock after the move reads the merchant's time: the instant of the answer, the new offset included
    w.checkInstant(ex, '$.now', clock.now, "the merchant's sandbox time after the move");
    const base = w.state.clockBase;
    const want = base === undefined ? undefined : Math.round((base + w.state.advanced.main) * 1000);
    const problem = model.clockOffsetProblem(clock, want);
    if (problem)
      w.check(
        false,
        'sandboxAdvanceClock',
        problem.path,
        problem.path === '$.offsetSeconds'
          ? `offsetSeconds ${String(clock.offsetSeconds)} is not the whole seconds of offsetMilliseconds ${String(clock.offsetMilliseconds)} (ADR-085)`
          : `offset ${String(clock.offsetMilliseconds)} ms after advancing ${ms} ms from ${Math.round((base! + before) * 1000)} ms (ADR-085)`,
        problem.expected,
        problem.actual,
      );
  }
  for (const t of w.state.txs.values()) if (t.who === who) settle(w.state, t, performance.now());
  return ex;
}
