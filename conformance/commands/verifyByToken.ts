/** A2: verify a checkout transaction with its session's token; another session's token, an expired or unknown one is refused. */
import { randomUUID } from 'node:crypto';
import { tokenAnswers, tokenExpiry, tokenState } from '../../model/index.ts';
import { recordEdge } from '../edges.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import type { ModelState, Session } from '../model-state.ts';
import { SLACK_MS, at, createdDuring, during, type Verdict } from '../model-time.ts';
import { checkStatusRecord } from '../status-record.ts';
import { possibleStatuses } from './advanceClock.ts';

const OP = 'getTransactionStatusBySessionToken';

/**
 * token-lifetime: has the token of session `ss` expired at `now` (performance.now()) — the model's
 * `tokenState` (x-token-lifetime-seconds, generated `tokenLifetimeSeconds`) on the merchant's
 * sandbox clock? 'yes', 'no' or 'maybe'.
 */
export function tokenExpired(s: ModelState, ss: Session, now: number): Verdict {
  return verdictOf(tokenState(createdDuring(ss), at(s, ss.who, now), SLACK_MS));
}

function verdictOf(t: 'valid' | 'expired' | 'either'): Verdict {
  return t === 'expired' ? 'yes' : t === 'valid' ? 'no' : 'maybe';
}

/**
 * Whether a session's token had expired when the server read its clock during an exchange: certain
 * only if it had before the request was sent, excluded only if it had not when the answer came.
 */
export function tokenExpiredDuring(s: ModelState, ss: Session, ex: { sentAt: number; receivedAt: number }): Verdict {
  return verdictOf(tokenState(createdDuring(ss), during(ex, s.advanced[ss.who]), SLACK_MS));
}

/** @checks token-lifetime, token-own-transaction, ADR-008 */
export class VerifyByToken implements Cmd {
  constructor(
    readonly idx: number,
    readonly token: 'own' | 'other-session' | 'garbage' | 'missing-transaction',
  ) {}
  check(m: Readonly<Model>): boolean {
    const paid = m.txs.filter((t) => t.kind === 'checkout');
    if (this.token === 'missing-transaction') return m.sessions.length > 0;
    if (this.token === 'other-session') return paid.length > 0 && m.sessions.length > 1;
    return paid.length > 0;
  }
  async run(m: Model, w: Real): Promise<void> {
    if (this.token === 'missing-transaction') {
      const s = pick(m.sessions, this.idx)!;
      const ex = await w.client.call(OP, { pathParams: { transaction_id: randomUUID() }, headers: w.auth(OP, s.token) });
      w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND'), refusal('INVALID_SESSION_TOKEN')]);
      return;
    }
    const tx = pick(
      m.txs.filter((t) => t.kind === 'checkout'),
      this.idx,
    )!;
    const s = tx.session!;
    let token = s.token;
    if (this.token === 'garbage') token = `${s.token}x`;
    if (this.token === 'other-session') token = m.sessions.find((o) => o !== s)!.token;
    const ex = await w.client.call(OP, { pathParams: { transaction_id: tx.id }, headers: w.auth(OP, token) });
    const statuses = possibleStatuses(w.state, tx, performance.now(), ex);
    // the answers the token's lifetime allows while the server read its clock (model's tokenAnswers)
    const use = during(ex, w.state.advanced[s.who]);
    const lifetime = tokenAnswers(createdDuring(s), use, SLACK_MS);
    if (this.token === 'own' && s.who === 'main' && w.sandbox) recordEdge(w.state, 'token-lifetime', tokenExpiry(createdDuring(s)), use);
    if (this.token !== 'own') {
      w.expectOutcome(ex, [refusal('INVALID_SESSION_TOKEN')]);
      return;
    }
    const allowed: Outcome[] = [];
    if (lifetime.refused) allowed.push(refusal('INVALID_SESSION_TOKEN'));
    if (lifetime.accepted) allowed.push(w.success(OP));
    w.expectOutcome(ex, allowed);
    if (!w.succeeded(ex)) return;
    // the record A2 answers (a2-status-record): status-record.ts
    checkStatusRecord(w, OP, tx, ex.json as Record<string, unknown>, statuses);
  }
  toString(): string {
    return `verifyByToken(#${this.idx}, ${this.token} token)`;
  }
}
