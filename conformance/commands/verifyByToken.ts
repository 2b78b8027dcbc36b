/** A2: verify a checkout transaction with its session's token; another session's token, an expired or unknown one is refused. */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { centimesOf } from '../../lib/money.ts';

const OP = 'getTransactionStatusBySessionToken';
/** ADR-008: how the verification flow reports internal statuses. */
const REPORTED: Record<string, string> = { PENDING: 'PENDING', APPROVED: 'APPROVED', CANCELED: 'CANCELED', EXPIRED: 'CANCELED', COMPLETED: 'APPROVED' };

export class VerifyByToken implements Cmd {
  constructor(readonly idx: number, readonly token: 'own' | 'other-session' | 'garbage' | 'missing-transaction') {}
  check(m: Readonly<Model>): boolean {
    const paid = m.txs.filter((t) => t.kind === 'checkout');
    if (this.token === 'missing-transaction') return m.sessions.length > 0;
    if (this.token === 'other-session') return paid.length > 0 && m.sessions.length > 1;
    return paid.length > 0;
  }
  async run(m: Model, w: Real): Promise<void> {
    if (this.token === 'missing-transaction') {
      const s = pick(m.sessions, this.idx)!;
      const ex = await w.client.call(OP, { pathParams: { transaction_id: randomUUID() }, headers: { 'X-Session-Token': s.token } });
      w.expectOutcome(ex, [{ status: 404, code: 'TRANSACTION_NOT_FOUND' }, { status: 401, code: 'INVALID_SESSION_TOKEN' }]);
      return;
    }
    const tx = pick(m.txs.filter((t) => t.kind === 'checkout'), this.idx)!;
    const s = tx.session!;
    let token = s.token;
    if (this.token === 'garbage') token = `${s.token}x`;
    if (this.token === 'other-session') token = m.sessions.find((o) => o !== s)!.token;
    const statuses = w.possibleStatuses(tx);
    const expired = w.tokenExpired(s);
    const ex = await w.client.call(OP, { pathParams: { transaction_id: tx.id }, headers: { 'X-Session-Token': token } });
    if (this.token !== 'own') {
      w.expectOutcome(ex, [{ status: 401, code: 'INVALID_SESSION_TOKEN' }]);
      return;
    }
    const allowed: { status: number; code?: string }[] = [];
    if (expired !== 'no') allowed.push({ status: 401, code: 'INVALID_SESSION_TOKEN' });
    if (expired !== 'yes') allowed.push({ status: 200 });
    w.expectOutcome(ex, allowed);
    if (ex.status !== 200) return;
    const rec = ex.json as Record<string, unknown>;
    const reported = statuses.map((st) => REPORTED[st]);
    w.check(reported.includes(rec.status as string), OP, '$.status', `status ${rec.status}, the model expects ${reported.join(' or ')} (ADR-008)`, reported, rec.status);
    w.check(rec.transaction_id === tx.id, OP, '$.transaction_id', 'another transaction was returned', tx.id, rec.transaction_id);
    w.check(centimesOf(rec.amount) === centimesOf(s.total), OP, '$.amount', `amount ${rec.amount} for a session of ${s.total}`, s.total, rec.amount);
    if (tx.status === 'PENDING' && rec.status === 'CANCELED') w.observe(tx, 'EXPIRED');
  }
  toString(): string {
    return `verifyByToken(#${this.idx}, ${this.token} token)`;
  }
}
