/**
 * Sandbox: A2's `created_at`/`updated_at` are `DD/MM/YY HH:MM:SS` in UTC (ADR-007): read back, the
 * creation time is when the transaction was created on the merchant's clock (`checkLocalCreatedAt`),
 * and `updated_at` is not before `created_at` nor after now (sandboxGetClock).
 */
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { parseLocalDateTime } from '../../model/local-date.ts';
import { tokenExpired } from './verifyByToken.ts';
import { checkLocalCreatedAt } from '../status-record.ts';

const OP = 'getTransactionStatusBySessionToken';
/** The dates are written in whole seconds (the clock is read after A2 answers). */
const WHOLE_SECOND_MS = 1000;

/** @checks ADR-007 */
export class DateForm implements Cmd {
  constructor(readonly idx: number) {}
  check(m: Readonly<Model>): boolean {
    return (
      m.state.sandbox &&
      m.txs.some((t) => t.kind === 'checkout' && t.session && tokenExpired(m.state, t.session, m.state.observedAt) === 'no')
    );
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'checkout' && t.session && tokenExpired(w.state, t.session, performance.now()) === 'no'),
      this.idx,
    )!;
    const ex = await w.client.call(OP, { pathParams: { transaction_id: tx.id }, headers: w.auth(OP, tx.session!.token) });
    w.expectOutcome(ex, [w.success(OP)]);
    const clock = await w.client.call('sandboxGetClock', { headers: w.auth('sandboxGetClock', w.cfg.apiKey) });
    w.expectOutcome(clock, [w.success(clock.opId)]);
    const now = Date.parse((clock.json as { now: string }).now);
    const rec = ex.json as { created_at?: string; updated_at?: string };
    // created_at: its form and its instant, as every A2 read is judged (status-record.ts, the judge's judgeStatusRecord)
    checkLocalCreatedAt(w, rec.created_at, tx);
    const created = parseLocalDateTime(rec.created_at)!;
    const updated = parseLocalDateTime(rec.updated_at);
    w.check(
      updated !== null,
      OP,
      '$.updated_at',
      `updated_at ${JSON.stringify(rec.updated_at)} is not a DD/MM/YY HH:MM:SS date (ADR-007)`,
      'DD/MM/YY HH:MM:SS',
      rec.updated_at,
    );
    w.check(
      updated! >= created && updated! < now + WHOLE_SECOND_MS,
      OP,
      '$.updated_at',
      `updated_at ${rec.updated_at} is before created_at ${rec.created_at} or after now`,
      rec.created_at,
      rec.updated_at,
    );
  }
  toString(): string {
    return `dateForm(#${this.idx})`;
  }
}
