/** A2: verify a checkout transaction with its session's token; another session's token, an expired or unknown one is refused. */
import { parseLocalDateTime } from './dateForm.ts';
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import type { Tx } from '../world.ts';
import { checkVerified } from './verified.ts';

const OP = 'getTransactionStatusBySessionToken';

/** @checks token-lifetime, token-own-transaction, a2-status-record, ADR-008 */
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
    const statuses = w.possibleStatuses(tx, ex);
    const expired = w.tokenExpiredDuring(s, ex);
    if (this.token !== 'own') {
      w.expectOutcome(ex, [refusal('INVALID_SESSION_TOKEN')]);
      return;
    }
    const allowed: Outcome[] = [];
    if (expired !== 'no') allowed.push(refusal('INVALID_SESSION_TOKEN'));
    if (expired !== 'yes') allowed.push(w.success(OP));
    w.expectOutcome(ex, allowed);
    if (!w.succeeded(ex)) return;
    const rec = ex.json as Record<string, unknown>;
    checkVerified(w, OP, tx, rec, statuses, 'transaction_id');
    checkLocalCreatedAt(w, rec.created_at, tx);
  }
  toString(): string {
    return `verifyByToken(#${this.idx}, ${this.token} token)`;
  }
}

/** Slack (ms) between the sandbox time the suite estimates for a creation and the one the server wrote (whole seconds). */
const CREATED_AT_SLACK_MS = 3000;

/** A2's created_at, read day first in UTC, is the time the checkout transaction was created (sandbox clock). */
export function checkLocalCreatedAt(w: Real, createdAt: unknown, tx: Tx): void {
  const lo = w.sandboxTimeAt(tx.sentAt, tx.advAtCreation);
  const hi = w.sandboxTimeAt(tx.receivedAt, tx.advAtCreation);
  if (lo === undefined || hi === undefined) return;
  const t = parseLocalDateTime(createdAt) ?? NaN;
  const ok = t >= lo - CREATED_AT_SLACK_MS && t <= hi + CREATED_AT_SLACK_MS;
  w.check(
    ok,
    OP,
    '$.created_at',
    `created_at ${String(createdAt)} reads (DD/MM/YY, UTC, ADR-007) as ${Number.isNaN(t) ? 'no date' : new Date(t).toISOString()}; the transaction was created at about ${new Date(lo).toISOString()}`,
    new Date(lo).toISOString(),
    createdAt,
  );
}
