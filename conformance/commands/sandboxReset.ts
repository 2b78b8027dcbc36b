/**
 * ADR-041 (sandbox): with A1 rate-limited and the clock advanced, `POST /api/v1/sandbox/reset`
 * answers offset 0, the clock then reads offset 0, and A1 answers again. It moves the merchant's
 * time back, so the model follows: the tour runs it last.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { advanceMainClock } from './advanceClock.ts';
import { rateLimit, sendSession, spendWindow } from './createSession.ts';

type Json = Record<string, unknown>;

/** @checks ADR-041 */
export class SandboxReset implements Cmd {
  constructor(readonly session: Json) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has('sandboxReset');
  }
  async run(m: Model, w: Real): Promise<void> {
    const limit = rateLimit(w.state).limit;
    const limited = await spendWindow(m, w, this.session, true);
    w.check(limited, 'createSession', '$', `no 429 after ${limit + 2} requests in one window`, 429);
    // the clock moved a minute, the window still spent (at most to its earliest end less a second)
    const end = w.state.rate.main.endLo - w.state.advanced.main * 1000 - performance.now();
    const secs = Math.min(60, Number.isFinite(end) ? Math.floor(end / 1000) - 1 : 60);
    if (secs >= 1) await advanceMainClock(w, secs);

    const reset = await w.client.call('sandboxReset', { headers: w.auth('sandboxReset', w.cfg.apiKey), body: {} });
    w.expectOutcome(reset, [w.success('sandboxReset')]);
    const offsetOf = (j: unknown) => (j as { offsetSeconds?: unknown } | undefined)?.offsetSeconds;
    w.check(
      offsetOf(reset.json) === 0,
      'sandboxReset',
      '$.offsetSeconds',
      `the reset answered offset ${String(offsetOf(reset.json))}`,
      0,
      offsetOf(reset.json),
    );
    const clock = await w.client.call('sandboxGetClock', { headers: w.auth('sandboxGetClock', w.cfg.apiKey) });
    w.expectOutcome(clock, [w.success('sandboxGetClock')]);
    w.check(
      offsetOf(clock.json) === 0,
      'sandboxGetClock',
      '$.offsetSeconds',
      `after the reset the clock reads offset ${String(offsetOf(clock.json))} (ADR-041)`,
      0,
      offsetOf(clock.json),
    );

    // the model: the merchant's time is real time again and its A1 window is empty
    w.state.advanced.main = -(w.state.clockBase ?? 0);
    w.state.rate.main = { usedLo: 0, usedHi: 0, endLo: -Infinity, endHi: Infinity };
    const after = await sendSession(m, w, this.session);
    w.check(
      after === 'created',
      'createSession',
      '$',
      `A1 after the reset was ${after}, the reset forgets the rate-limit window (ADR-041)`,
      'created',
      after,
    );
  }
  toString(): string {
    return 'sandboxReset(after a full A1 window and a clock advance)';
  }
}
