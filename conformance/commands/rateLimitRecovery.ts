/**
 * The random search's rate-limit burst (sandbox profile): `RateLimitBurst`, then the clock just
 * past the window's end and one A1 request there, which must be counted in a new window (the far
 * edge of the limit, just after it). So the search leaves no spent window behind: later
 * commands, later runs and the shrinker's replays (where the burst budget is spent and the burst
 * is skipped) never depend on it. The tour runs `RateLimitBurst` alone: it probes both edges of
 * its window after it. In the core profile there is no clock to move: the burst alone.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { advanceMainClockMs, msPastRateWindow } from './advanceClock.ts';
import { RateLimitBurst, sendSession } from './createSession.ts';

type Json = Record<string, unknown>;

export class RateLimitRecovery implements Cmd {
  private readonly burst: RateLimitBurst;
  constructor(readonly body: Json) {
    this.burst = new RateLimitBurst(body);
  }
  check(m: Readonly<Model>): boolean {
    return this.burst.check(m);
  }
  async run(m: Model, w: Real): Promise<void> {
    await this.burst.run(m, w); // it ends at its 429, or with a finding
    if (!w.sandbox) return;
    const ms = msPastRateWindow(w.state);
    if (ms >= 1) await advanceMainClockMs(w, ms);
    await sendSession(m, w, this.body, 'main', false);
  }
  toString(): string {
    return 'rateLimitBurst(then just past the window)';
  }
}
