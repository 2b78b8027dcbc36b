/**
 * Sandbox: advance the merchant's clock. Targets put it 1 s before a transaction's payment window
 * ends (it must still be PENDING), exactly past it (EXPIRED), just before or past a session
 * token's lifetime, just before the end of a spent rate-limit window or past it. Every edge comes
 * from the contract's facts (payment window, `x-token-lifetime-seconds`, `x-rate-limit`) and the
 * model's time intervals, never typed.
 */
import { tokenLifetimeSeconds } from '../../generated/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { rateLimit } from './createSession.ts';

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
      return m.txs.some((t) => t.status === 'PENDING' && t.who === 'main');
    if (this.target === 'past-token-lifetime' || this.target === 'just-before-token-lifetime') return m.sessions.length > 0;
    return true;
  }
  async run(m: Model, w: Real): Promise<void> {
    const W = w.cfg.paymentWindowSeconds * 1000;
    let secs = this.seconds;
    const tx = pick(
      m.txs.filter((t) => t.status === 'PENDING' && t.who === 'main'),
      this.idx,
    );
    if (this.target === 'just-before-expiry' || this.target === 'at-expiry') {
      const [lo, hi] = w.age(tx!, 'main');
      secs = this.target === 'just-before-expiry' ? Math.floor((W - hi) / 1000) - 1 : Math.ceil((W - lo) / 1000);
    } else if (this.target === 'past-token-lifetime') {
      const [lo] = w.age(pick(m.sessions, this.idx)!, 'main');
      secs = Math.ceil((tokenLifetimeSeconds * 1000 - lo) / 1000);
    } else if (this.target === 'just-before-token-lifetime') {
      const [, hi] = w.age(pick(m.sessions, this.idx)!, 'main');
      secs = Math.floor((tokenLifetimeSeconds * 1000 - hi) / 1000) - 1;
    } else if (this.target === 'just-before-rate-window') {
      // the earliest end of the main key's window (model), less a second; nothing when no window is known
      const end = w.state.rate.main.endLo - w.state.advanced.main * 1000 - performance.now();
      secs = Number.isFinite(end) ? Math.floor(end / 1000) - 1 : 0;
    } else if (this.target === 'past-rate-window') {
      // just past the latest end of the main key's known window (a window that lasts longer is found), else a whole window
      const end = w.state.rate.main.endHi - w.state.advanced.main * 1000 - performance.now();
      secs = Number.isFinite(end) ? Math.ceil(end / 1000) + 1 : rateLimit(w.state).windowSeconds;
    }
    if (secs < 1) return;
    await advanceMainClock(w, secs);
    if (tx && tx.kind === 'partner' && this.target === 'just-before-expiry') {
      const r = await w.client.call('getPartnerTransaction', {
        pathParams: { transactionId: tx.id },
        headers: w.auth('getPartnerTransaction', w.cfg.apiKey),
      });
      w.expectOutcome(r, [w.success(r.opId)]);
      const st = (r.json as { status: string }).status;
      const allowed = w.possibleStatuses(tx, r);
      w.check(
        allowed.includes(st),
        'getPartnerTransaction',
        '$.status',
        `1 s before the payment window ends the status is ${st}`,
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
 * Advances the main merchant's sandbox clock by `secs` (≥ 1) seconds: the model's offset follows
 * (`advanced`), the answer's offset is checked against it, and the transactions whose payment window
 * certainly passed expire in the model.
 */
export async function advanceMainClock(w: Real, secs: number): Promise<void> {
  const ex = await w.client.call('sandboxAdvanceClock', {
    headers: w.auth('sandboxAdvanceClock', w.cfg.apiKey),
    body: { seconds: secs },
  });
  w.expectOutcome(ex, [w.success(ex.opId)]);
  const before = w.state.advanced.main;
  w.state.advanced.main += secs;
  const clock = ex.json as { offsetSeconds: number };
  if (w.state.clockBase !== undefined) {
    w.check(
      clock.offsetSeconds === w.state.clockBase + w.state.advanced.main,
      'sandboxAdvanceClock',
      '$.offsetSeconds',
      `offset ${clock.offsetSeconds} after advancing ${secs} s from ${w.state.clockBase + before}`,
      w.state.clockBase + w.state.advanced.main,
      clock.offsetSeconds,
    );
  }
  for (const t of w.state.txs.values()) if (t.who === 'main') w.settle(t);
}
