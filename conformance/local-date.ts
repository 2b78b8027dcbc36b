/**
 * A2's created_at (ADR-007's date form, read back by the model's `parseLocalDateTime`) compared
 * with the time the checkout transaction was created. Used by DateForm (ADR-007's check) and on
 * every A2 read by VerifyByToken.
 */
import { parseLocalDateTime } from '../model/local-date.ts';
import type { Real } from './model.ts';
import type { Tx } from './model-state.ts';

const OP = 'getTransactionStatusBySessionToken';

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
