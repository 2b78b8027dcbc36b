/**
 * ADR-007's date form, `DD/MM/YY HH:MM:SS` in UTC (A2's created_at/updated_at): read back, and A2's
 * created_at compared with the time the checkout transaction was created. Used by DateForm (ADR-007's
 * check) and on every A2 read by VerifyByToken.
 */
import type { Real } from './model.ts';
import type { Tx } from './model-state.ts';

const OP = 'getTransactionStatusBySessionToken';

/** `DD/MM/YY HH:MM:SS` read as UTC (20YY), or null when it is not that form or no such date. */
export function parseLocalDateTime(text: unknown): number | null {
  const m = typeof text === 'string' ? /^(\d{2})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text) : null;
  if (!m) return null;
  const [d, mo, y, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = Date.UTC(2000 + y, mo - 1, d, h, mi, s);
  const back = new Date(t);
  return back.getUTCDate() === d && back.getUTCMonth() === mo - 1 && back.getUTCHours() === h ? t : null;
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
