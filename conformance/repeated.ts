/**
 * Repeated values: a value one answer repeats from another — the merchant's names, the
 * amount, the currency, the phone, the references, the payment intent, the creation instant — is
 * the value the transaction showed first, in every answer, record and webhook payload that carries
 * it, whatever its member's name there (`customer_phone` in A2, `customerPhone` in an event). The
 * model keeps the first showing (`Tx.shown`); the merchant's names are the merchant's (`state.names`).
 * A partner transaction's B-family record is compared with the created one (`checkRecord`); this
 * module covers what carries the same values elsewhere: A3 and the checkout events (A2's record:
 * status-record.ts).
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
