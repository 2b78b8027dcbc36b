/** Sandbox: the shopper pays a session (Simulate Success / Failed), creating or reusing its checkout transaction. */
import { INITIAL } from '../../model/index.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { countRate, rateLimited, withRateLimit } from './createSession.ts';
import { tokenExpiredDuring } from './verifyByToken.ts';
import { fixedBody, fixedTotal } from '../gen.ts';
import type { Tx } from '../world.ts';
import { allowedAnswers, settleRefused } from './cancelTransaction.ts';
import { changed } from '../instants.ts';

type Json = Record<string, unknown>;
const OP = 'sandboxPaySession';

/** @checks checkout-test-mode, ADR-014, ADR-019 */
export class PaySession implements Cmd {
  constructor(
    readonly idx: number,
    readonly outcome: 'success' | 'failed',
    readonly token: 'own' | 'unknown' | 'other-merchant',
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && (this.token !== 'own' || m.sessions.length > 0);
  }
  async run(m: Model, w: Real): Promise<void> {
    if (this.token === 'other-merchant') {
      // A session of the other merchant, paid with this merchant's key: 404 SESSION_NOT_FOUND.
      const limited = rateLimited(w.state, 'other', performance.now());
      const body = fixedBody(w.contract, 'createSession', fixedTotal(w.contract, 'createSession', 1));
      const s = await w.client.call('createSession', { headers: w.auth('createSession', w.cfg.otherApiKey), body });
      w.expectOutcome(s, withRateLimit(limited, [w.success('createSession')]));
      countRate(w.state, 'other', s, (...a) => w.check(...a));
      if (!w.succeeded(s)) return;
      const rec = s.json as Json;
      const token = (w.cfg.variant === 1 ? rec.token : rec.session_token) as string;
      const ex = await w.client.call(OP, { headers: w.auth(OP, w.cfg.apiKey), body: { session_token: token, outcome: this.outcome } });
      w.expectOutcome(ex, [refusal('SESSION_NOT_FOUND')]);
      return;
    }
    if (this.token === 'unknown') {
      const ex = await w.client.call(OP, {
        headers: w.auth(OP, w.cfg.apiKey),
        body: { session_token: `st_unknown_${this.idx}`, outcome: this.outcome },
      });
      w.expectOutcome(ex, [refusal('INVALID_SESSION_TOKEN'), refusal('SESSION_NOT_FOUND')]);
      return;
    }
    const s = pick(m.sessions, this.idx)!;
    const tx = s.tx;
    const ex = await w.client.call(OP, { headers: w.auth(OP, w.cfg.apiKey), body: { session_token: s.token, outcome: this.outcome } });
    const expired = tokenExpiredDuring(w.state, s, ex);
    const moves = tx ? allowedAnswers(w.state, tx, OP, ex, this.outcome) : { statuses: [INITIAL], allowed: [w.success(OP)] };
    const statuses = moves.statuses;
    const allowed: Outcome[] = [];
    if (expired !== 'no') allowed.push(refusal('INVALID_SESSION_TOKEN'));
    if (expired !== 'yes') allowed.push(...moves.allowed);
    w.expectOutcome(ex, allowed);
    if (!w.succeeded(ex)) {
      if (tx) settleRefused(w, tx, OP, ex, statuses);
      return;
    }
    const rec = ex.json as Json;
    let t: Tx | undefined = tx;
    if (t) {
      w.check(
        rec.transaction_id === t.id,
        OP,
        '$.transaction_id',
        'paying again a session whose transaction is PENDING must reuse it',
        t.id,
        rec.transaction_id,
      );
    } else {
      t = {
        id: rec.transaction_id as string,
        who: 'main',
        kind: 'checkout',
        status: INITIAL,
        vendorReference: null,
        created: { amount: s.total, payment_intent_id: rec.payment_intent_id },
        sentAt: ex.sentAt,
        receivedAt: ex.receivedAt,
        advAtCreation: w.state.advanced.main,
        session: s,
        runId: w.state.runId,
      };
      w.transition(t, 'checkout-pay');
      s.tx = t;
      w.state.txs.set(t.id, t);
      m.txs.push(t);
    }
    const want = this.outcome === 'success' ? 'APPROVED' : INITIAL;
    w.check(rec.status === want, OP, '$.status', `outcome ${this.outcome} gave status ${String(rec.status)}`, want, rec.status);
    const redirect = this.outcome === 'success' ? 'SUCCESS' : 'FAILED';
    w.check(
      rec.redirect_status === redirect,
      OP,
      '$.redirect_status',
      `outcome ${this.outcome} gave redirect_status ${String(rec.redirect_status)}`,
      redirect,
      rec.redirect_status,
    );
    if (this.outcome === 'success') {
      w.transition(t, 'checkout-success');
      changed(w, t, ex);
    }
  }
  toString(): string {
    return this.token !== 'own' ? `paySession(${this.token} token, ${this.outcome})` : `paySession(session #${this.idx}, ${this.outcome})`;
  }
}
