/**
 * Sandbox: A2's `created_at`/`updated_at` are `DD/MM/YY HH:MM:SS` in UTC (ADR-007): read back, the
 * creation time lies within the transaction's known age on the merchant's clock (sandboxGetClock),
 * and `updated_at` is not before `created_at` nor after now.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';
import { parseLocalDateTime } from '../../model/local-date.ts';
import { tokenExpired } from './verifyByToken.ts';

const OP = 'getTransactionStatusBySessionToken';
/** The dates have whole seconds; the clock is read after A2 answers. */
const SLACK_MS = 2000;

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
    const [lo, hi] = w.age(tx, 'main');
    const rec = ex.json as { created_at?: string; updated_at?: string };
    const created = parseLocalDateTime(rec.created_at);
    const updated = parseLocalDateTime(rec.updated_at);
    w.check(
      created !== null,
      OP,
      '$.created_at',
      `created_at ${JSON.stringify(rec.created_at)} is not a DD/MM/YY HH:MM:SS date (ADR-007)`,
      'DD/MM/YY HH:MM:SS',
      rec.created_at,
    );
    w.check(
      updated !== null,
      OP,
      '$.updated_at',
      `updated_at ${JSON.stringify(rec.updated_at)} is not a DD/MM/YY HH:MM:SS date (ADR-007)`,
      'DD/MM/YY HH:MM:SS',
      rec.updated_at,
    );
    const earliest = new Date(now - hi - SLACK_MS).toISOString();
    const latest = new Date(now - lo + SLACK_MS).toISOString();
    w.check(
      created! >= now - hi - SLACK_MS && created! <= now - lo + SLACK_MS,
      OP,
      '$.created_at',
      `created_at ${rec.created_at} read as UTC day first is not when the transaction was created (between ${earliest} and ${latest} on the merchant's clock)`,
      [earliest, latest],
      rec.created_at,
    );
    w.check(
      updated! >= created! && updated! <= now + SLACK_MS,
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
