/**
 * The "last changed" instant: null before the first change (A2: equal to `created_at`,
 * ADR-007), then the instant of the latest change, which lies in the interval of the request that
 * made it (a move the suite made: `Tx.changes`) or, for an expiry, the interval the payment
 * window ended in (`expiryInstant`). Judged wherever a record or payload carries it: B2, B3, B4's
 * and the sandbox moves' answers, A2 in its date form, an approval event's `approvedAt`. Time is
 * the model's interval on the main merchant's sandbox clock (sandbox profile); a timestamp may be
 * truncated to the second, never later than its event.
 */
import { EXPIRY, INITIAL } from '../model/index.ts';
import * as model from '../model/index.ts';
import type { Exchange } from './http.ts';
import { parseLocalDateTime } from '../model/local-date.ts';
import type { Tx } from './model-state.ts';
import { instantOf } from './model-time.ts';
import type { Report } from './repeated.ts';
import type { World } from './world.ts';
import { expiryInstant } from './commands/advanceClock.ts';

/** The suite's move `ex` led `tx` to its current status (its answer read): that change lies in its interval. */
export function changed(w: World, tx: Tx, ex: Pick<Exchange, 'sentAt' | 'receivedAt'>): void {
  (tx.changes ??= {})[tx.status] = { sentAt: ex.sentAt, receivedAt: ex.receivedAt, adv: w.state.advanced[tx.who] };
}

/**
 * The interval (ms since the epoch, sandbox clock) of the change that led `tx` to `status` (default:
 * its current one), when the model knows it: the expiry's, or the suite's move's (each status is
 * entered once: the state machine has no cycle). Main merchant, sandbox profile only.
 */
export function changeInterval(w: World, tx: Tx, status: Tx['status'] = tx.status): [number, number] | undefined {
  if (tx.who !== 'main' || status === INITIAL) return undefined;
  if (status === EXPIRY.to) return expiryInstant(w.state, tx);
  const c = tx.changes?.[status];
  return c && instantOf(w.state, c, c.adv);
}

function iso(t: number): string {
  return new Date(t).toISOString();
}

/**
 * A "last changed" `value` (`form`: ISO 8601, or A2's `DD/MM/YY HH:MM:SS`) of `tx`, whose status the
 * record shows as the model's: before a change `createdAt` (A2's form; ISO's null is `checkRecord`'s); after it, in
 * the interval of the latest change.
 * @checks ADR-007
 */
export function checkLastChanged(
  w: World,
  report: Report,
  tx: Tx,
  path: string,
  value: unknown,
  form: 'iso' | 'local',
  createdAt?: unknown,
): void {
  // ISO before any change: null, judged with the record (`checkRecord`)
  if (tx.status === INITIAL && form === 'iso') return;
  const iv = changeInterval(w, tx);
  if (tx.status !== INITIAL && !iv) return;
  const parse = (v: unknown): number | null => {
    const t = form === 'local' ? parseLocalDateTime(v) : typeof v === 'string' ? Date.parse(v) : NaN;
    return t === null || Number.isNaN(t) ? null : t;
  };
  const created = parse(createdAt) ?? NaN;
  // the model's timestamp rule: createdAt (A2, ADR-007) before the first change, then the latest change's interval
  const stamps = { createdAt: { from: created, to: created }, lastChange: iv ? { from: iv[0], to: iv[1] } : null };
  report(
    model.updatedAtAllowed(parse(value), stamps, created, form === 'local' ? 'created' : 'null'),
    path,
    iv
      ? `${path.slice(2)} ${JSON.stringify(value)} of ${tx.status} transaction ${tx.id} is not the instant of its latest change (${tx.status === EXPIRY.to ? "the payment window's end" : 'the request that made it'}): between ${iso(iv[0])} and ${iso(iv[1])} on the merchant's sandbox clock`
      : `${path.slice(2)} ${JSON.stringify(value)} before any change, created_at is ${JSON.stringify(createdAt)} (ADR-007)`,
    iv ? [iso(iv[0]), iso(iv[1])] : createdAt,
    value,
  );
}

/**
 * An event's instant of its change (`approvedAt` of `transaction.approved`): in the interval of the
 * move that led the transaction to `status`, whatever it did since.
 */
export function checkEventInstant(w: World, report: Report, tx: Tx, status: Tx['status'], path: string, value: unknown): void {
  const iv = changeInterval(w, tx, status);
  if (!iv || value === undefined) return;
  const t = typeof value === 'string' ? Date.parse(value) : NaN;
  report(
    model.within({ from: iv[0], to: iv[1] }, t),
    path,
    `${path.slice(2)} ${JSON.stringify(value)} of transaction ${tx.id} is not the instant of its move to ${status}: between ${iso(iv[0])} and ${iso(iv[1])} on the merchant's sandbox clock`,
    [iso(iv[0]), iso(iv[1])],
    value,
  );
}
