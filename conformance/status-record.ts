/**
 * a2-status-record: A2's answer (TransactionStatusRecord), checked whole in one place. What it
 * shares with A3 (the status as the checkout reports it, the id, the session's amount) is
 * `checkVerified`'s; A2's own members are checked here: the merchant's names, currency, phone and
 * creation instant as first shown, the payment intent the pay answer named, the last change's
 * instant, and created_at in ADR-007's date form (DD/MM/YY HH:MM:SS, UTC, whole seconds).
 *
 * The judgement of a record against what is known of it (`judgeStatusRecord`, judge/names.ts) is
 * one function that the suite and the judge (judge/reads.ts) both call, each wording its own
 * findings: both judge the merchant's names and created_at with it; customer_phone and updated_at
 * only the judge, from its memory, where the suite checks them as it checks every record
 * (`sameAsFirst` against the first showing, `checkLastChanged` against the change's interval).
 */
import { judgeStatusRecord } from '../judge/names.ts';
import { checkVerified } from './commands/verified.ts';
import { checkLastChanged } from './instants.ts';
import type { Real } from './model.ts';
import type { Tx } from './model-state.ts';
import { checkOf, creationSecond, sameAsFirst } from './repeated.ts';

const OP = 'getTransactionStatusBySessionToken';

/** Slack (ms) between the sandbox time the suite estimates for a creation and the one the server wrote. */
const CREATED_AT_SLACK_MS = 3000;

/** A2's created_at, read day first in UTC, is the time the checkout transaction was created (sandbox clock). */
export function checkLocalCreatedAt(w: Real, createdAt: unknown, tx: Tx): void {
  const lo = w.sandboxTimeAt(tx.sentAt, tx.advAtCreation);
  const hi = w.sandboxTimeAt(tx.receivedAt, tx.advAtCreation);
  if (lo === undefined || hi === undefined) return;
  const [v] = judgeStatusRecord({ created_at: createdAt }, { created: { from: lo - CREATED_AT_SLACK_MS, to: hi + CREATED_AT_SLACK_MS } });
  const t = v?.problem === 'created_at' ? v.read : null;
  w.check(
    v === undefined,
    OP,
    '$.created_at',
    `created_at ${String(createdAt)} reads (DD/MM/YY, UTC, ADR-007) as ${t === null ? 'no date' : new Date(t).toISOString()}; the transaction was created at about ${new Date(lo).toISOString()}`,
    new Date(lo).toISOString(),
    createdAt,
  );
}

/**
 * A2's record `rec` of `tx` (a checkout transaction) answered by `op`, `statuses` those the model
 * allows: what it shares with A3, then its names, currency, phone, creation instant, payment
 * intent, last change and created_at's date form.
 * @checks a2-status-record
 */
export function checkStatusRecord(w: Real, op: string, tx: Tx, rec: Record<string, unknown>, statuses: readonly string[]): void {
  checkVerified(w, op, tx, rec, statuses, 'transaction_id');
  const report = checkOf(w, op);
  for (const v of judgeStatusRecord(rec, { names: w.state.names[tx.who] }))
    if (v.problem === 'name')
      report(
        false,
        `$.${v.member}`,
        `${v.name} ${JSON.stringify(v.actual)}, the merchant's ${v.name} is ${JSON.stringify(v.expected)} everywhere else`,
        v.expected,
        v.actual,
      );
  sameAsFirst(report, tx, 'currency', '$.currency', rec.currency);
  sameAsFirst(report, tx, 'customerPhone', '$.customer_phone', rec.customer_phone);
  sameAsFirst(report, tx, 'createdAt (to the second)', '$.created_at', creationSecond(rec.created_at, 'local'));
  const intent = tx.created.payment_intent_id;
  if (intent !== undefined)
    report(
      rec.payment_intent_id === intent,
      '$.payment_intent_id',
      `payment_intent_id ${String(rec.payment_intent_id)}, the payment answered ${JSON.stringify(intent)}`,
      intent,
      rec.payment_intent_id,
    );
  // the last change (its date form) when the model's status is certain
  if (statuses.length === 1 && statuses[0] === tx.status)
    checkLastChanged(w, report, tx, '$.updated_at', rec.updated_at, 'local', rec.created_at);
  checkLocalCreatedAt(w, rec.created_at, tx);
}
