/**
 * A1's budget, planned from the contract's facts (a1-rate-limit, ADR-006): `x-rate-limit` lets each
 * key send `limit` A1 requests per `windowSeconds`, whatever their outcome. A tour command that needs
 * its A1 requests answered by their bodies, not by the limit, is wrapped in `spending`:
 *  - in the sandbox profile, before it runs, the key's window must hold its requests (the model's
 *    count, `rateLimited`); when it may not, the key's sandbox clock is moved just past the window
 *    (`a1Room`), so a limit down to 1 per window still answers every probe by its body;
 *  - in the core profile no clock can move: the tour runs before the random search, and a tour
 *    that needs more A1 requests than a window holds (`a1Cost` of its wrapped commands) is
 *    reported incomplete, naming the budget.
 */
import type { Cmd, Model, Real } from '../model.ts';
import type { Who } from '../model-state.ts';
import { advanceClockMs, msPastRateWindow } from './advanceClock.ts';
import { rateLimit, rateLimited } from './createSession.ts';

/**
 * Sandbox: makes room in `who`'s A1 window for `n` more requests answered by their bodies. When the
 * model counts the window as possibly too full, the key's clock moves just past its latest end (a
 * whole window when its end is unknown: every window that began before has then ended, so the model
 * forgets it). Does nothing outside the sandbox.
 */
export async function a1Room(w: Real, who: Who = 'main', n = 1): Promise<void> {
  if (!w.sandbox) return;
  const { limit } = rateLimit(w.state);
  rateLimited(w.state, who, performance.now()); // forgets a window that certainly ended
  if (w.state.rate[who].usedHi + Math.min(n, limit) <= limit) return;
  const known = Number.isFinite(w.state.rate[who].endHi);
  // a whole second past its latest end, not a millisecond: room is wanted here, not the edge (the
  // tour's own edge probes go to the millisecond); the server's clock and the suite's may differ by that
  await advanceClockMs(w, who, (Math.ceil(msPastRateWindow(w.state, who) / 1000) + 1) * 1000);
  if (!known) w.state.rate[who] = { usedLo: 0, usedHi: 0, endLo: -Infinity, endHi: Infinity };
}

/** A tour command that sends `n` A1 requests with `who`'s key, each to be answered by its body: room is made first. */
export class Spending implements Cmd {
  constructor(
    readonly inner: Cmd,
    readonly n: number,
    readonly who: Who = 'main',
  ) {}
  check(m: Readonly<Model>): boolean {
    return this.inner.check(m);
  }
  async run(m: Model, w: Real): Promise<void> {
    await a1Room(w, this.who, this.n);
    await this.inner.run(m, w);
  }
  toString(): string {
    return this.inner.toString();
  }
}

export function spending(cmd: Cmd, n = 1, who: Who = 'main'): Cmd {
  return new Spending(cmd, n, who);
}

/** The main key's A1 requests the commands declare they spend (`spending`, at any depth of wrapping). */
export function a1Cost(cmds: readonly Cmd[]): number {
  let total = 0;
  for (const c of cmds) {
    let x: unknown = c;
    while (x && !(x instanceof Spending) && typeof x === 'object' && 'inner' in x) x = x.inner;
    if (x instanceof Spending && x.who === 'main') total += x.n;
  }
  return total;
}
