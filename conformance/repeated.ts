/**
 * Repeated values (issue 42): a value one answer repeats from another — the merchant's names, the
 * amount, the currency, the phone, the references, the payment intent, the creation instant — is
 * the value the transaction showed first, in every answer, record and webhook payload that carries
 * it, whatever its member's name there (`customer_phone` in A2, `customerPhone` in an event). The
 * model keeps the first showing (`Tx.shown`); the merchant's names are the merchant's (`state.names`).
 * A partner transaction's B-family record is compared with the created one (`checkRecord`); this
 * module covers what carries the same values elsewhere: A2, A3 and the checkout events.
 */
import { parseLocalDateTime } from '../model/local-date.ts';
import type { Tx } from './model-state.ts';
import { sameJson } from '../model/index.ts';
import type { World } from './world.ts';

/** One verdict: ok, the JSON path, what differs, the expected and the actual value. */
export type Report = (ok: boolean, path: string, msg: string, expected: unknown, actual: unknown) => void;

/** A verdict reported as a check of `op` (a command's answer). */
export function checkOf(w: World, op: string): Report {
  return (ok, path, msg, expected, actual) => w.check(ok, op, path, msg, expected, actual);
}

/**
 * `value`, shown at `path` as the transaction's `name`, is the value it showed first; the first
 * showing is kept. An absent member (undefined) is not judged.
 */
export function sameAsFirst(report: Report, tx: Tx, name: string, path: string, value: unknown): void {
  if (value === undefined) return;
  const shown = (tx.shown ??= {});
  if (!(name in shown)) {
    shown[name] = value;
    return;
  }
  report(
    sameJson(value, shown[name]),
    path,
    `${name} ${JSON.stringify(value)} of transaction ${tx.id}, which showed ${JSON.stringify(shown[name])} first`,
    shown[name],
    value,
  );
}

/** A merchant's name (`merchantName`, `storeName`) shown at `path`: the merchant's everywhere (learned once). */
export function sameName(w: World, report: Report, tx: Tx, name: 'merchantName' | 'storeName', path: string, value: unknown): void {
  if (value === undefined) return;
  const known = w.state.names[tx.who];
  if (known[name] === undefined) known[name] = value;
  else
    report(
      value === known[name],
      path,
      `${name} ${JSON.stringify(value)}, the merchant's ${name} is ${JSON.stringify(known[name])} everywhere else`,
      known[name],
      value,
    );
}

/** The creation instant to the second (A2's date form has no milliseconds): ms since the epoch, or undefined. */
export function creationSecond(value: unknown, form: 'iso' | 'local'): number | undefined {
  const t = form === 'local' ? parseLocalDateTime(value) : typeof value === 'string' ? Date.parse(value) : NaN;
  return t === null || Number.isNaN(t) ? undefined : Math.floor(t / 1000) * 1000;
}

/**
 * A2's record (TransactionStatusRecord) of a checkout transaction: names, currency, phone and the
 * creation instant as first shown, the payment intent the pay answer named.
 * @checks a2-status-record
 */
export function checkStatusRecordValues(w: World, op: string, tx: Tx, rec: Record<string, unknown>): void {
  const report = checkOf(w, op);
  sameName(w, report, tx, 'merchantName', '$.merchant_name', rec.merchant_name);
  sameName(w, report, tx, 'storeName', '$.store_name', rec.store_name);
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
}

/** A3's record (TransactionVerification): the currency as first shown. */
export function checkVerificationValues(w: World, op: string, tx: Tx, rec: Record<string, unknown>): void {
  sameAsFirst(checkOf(w, op), tx, 'currency', '$.currency', rec.currency);
}

/**
 * A webhook payload's data of a checkout transaction (a partner one is compared with its created
 * record by the judge): the references, currency, phone and creation instant as first shown.
 */
export function checkCheckoutEventValues(report: Report, tx: Tx, data: Record<string, unknown>): void {
  sameAsFirst(report, tx, 'vendorReference', '$.data.vendorReference', data.vendorReference);
  sameAsFirst(report, tx, 'orderReference', '$.data.orderReference', data.orderReference);
  sameAsFirst(report, tx, 'currency', '$.data.currency', data.currency);
  sameAsFirst(report, tx, 'customerPhone', '$.data.customerPhone', data.customerPhone);
  sameAsFirst(report, tx, 'createdAt (to the second)', '$.data.createdAt', creationSecond(data.createdAt, 'iso'));
}
