/**
 * Pure transaction logic: state changes (through the spec's state machine), lazy expiry,
 * webhook payloads exactly per the event schemas, and the views each endpoint answers.
 */
import { checkoutStatusOf } from '../../generated/contract.ts';
import { centimesToNumber, formatCentimes } from '../../lib/money.ts';
import { confirmationSmsText } from '../../lib/confirmation-sms.ts';
import { iso, localDateTime } from './clock.ts';
import { EXPIRY, at, expiredBy } from '../../model/index.ts';
import { attempt, type Outcome } from './stateMachine.ts';
import type { OutboxEvent, WebhookEventName, WebhookPayload } from './outbox-event.ts';
import type { Status, TransactionRecord } from './types.ts';

export type CheckoutStatus = (typeof checkoutStatusOf)[Status];

export interface MerchantView {
  id: string;
  name: string;
  storeName: string;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

/**
 * The webhook body of `event` for `tx` (already in its new status), sent at `sentAtMs`.
 * @rule webhook-payload, ADR-003
 */
export function buildWebhookPayload(
  event: WebhookEventName,
  tx: TransactionRecord,
  merchant: MerchantView,
  sentAtMs: number,
): WebhookPayload {
  const base = {
    id: tx.id,
    vendorReference: tx.vendorReference,
    orderReference: tx.orderReference,
    amount: centimesToNumber(tx.totalCentimes),
    currency: tx.currency,
    customerPhone: tx.customerPhone,
    merchantName: merchant.name,
    storeName: merchant.storeName,
    createdAt: tx.createdAt,
  };
  const timestamp = iso(sentAtMs);
  switch (event) {
    case 'transaction.approved':
      return { event, timestamp, data: { ...base, status: 'APPROVED', approvedAt: tx.approvedAt ?? timestamp } };
    case 'transaction.cancelled':
      return { event, timestamp, data: { ...base, status: 'CANCELED' } };
    case 'transaction.expired':
      return { event, timestamp, data: { ...base, status: 'EXPIRED', expiredAt: tx.expiredAt ?? timestamp } };
  }
}

/** The outbox record of an event (state per the merchant's endpoint); `id` is its `msg_…` webhook-id. */
export function buildOutboxEvent(
  event: WebhookEventName,
  tx: TransactionRecord,
  merchant: MerchantView,
  nowMs: number,
  endpointEnabled: boolean,
  id: string,
): OutboxEvent {
  const createdAt = iso(nowMs);
  const url = merchant.webhookUrl;
  // No URL or no secret: nothing can be sent (an unsigned webhook is never sent).
  const state = url === null || merchant.webhookSecret === null ? 'no_endpoint' : endpointEnabled ? 'pending' : 'disabled';
  return {
    id,
    merchantId: merchant.id,
    event,
    transactionId: tx.id,
    payload: buildWebhookPayload(event, tx, merchant, nowMs),
    createdAt,
    state,
    url,
    nextAttemptAt: state === 'pending' ? createdAt : null,
    attempts: [],
  };
}

export type Applied = { ok: true; tx: TransactionRecord; emits: WebhookEventName | null } | Extract<Outcome, { ok: false }>;

/** Applies what `operationId` does to `tx` at `nowMs`; the returned record is a new object. */
export function applyOperation(operationId: string, tx: TransactionRecord, nowMs: number, outcome?: 'success' | 'failed'): Applied {
  const expiresAt = Date.parse(tx.expiresAt);
  const r = attempt(operationId, tx.status, { now: nowMs, expiresAt, outcome });
  if (!r.ok) return r;
  const at = iso(nowMs);
  const next: TransactionRecord = { ...tx, status: r.to, updatedAt: at };
  if (r.to === 'APPROVED') next.approvedAt = at;
  return { ok: true, tx: next, emits: r.emits };
}

/**
 * A sandbox scenario's customer action (ADR-043) that is due at `nowMs` and comes before the
 * expiry: the transition of its operation, dated when it fell due. Null when none is due,
 * the window passed first, or the state machine refuses it (the transaction moved on).
 */
export function dueScenarioAction(
  tx: TransactionRecord,
  nowMs: number,
): { tx: TransactionRecord; emits: WebhookEventName | null; at: number } | null {
  if (!tx.scenario || tx.status !== 'PENDING') return null;
  const at = Date.parse(tx.scenario.dueAt);
  if (at > nowMs || at >= Date.parse(tx.expiresAt)) return null;
  const r = applyOperation(tx.scenario.operationId, tx, at);
  if (!r.ok) return null;
  const { scenario: _done, ...rest } = r.tx;
  return { tx: rest, emits: r.emits, at };
}

/**
 * Lazy expiry: a transaction whose window has passed is EXPIRED from the instant
 * `createdAt + window`, whether or not anything looked at it then. Returns the expired
 * record, or null when nothing changes (the payment window of ADR-010; the model's `expiredBy`).
 * @rule ADR-010
 * @binds expiry
 */
export function expireIfDue(tx: TransactionRecord, nowMs: number): TransactionRecord | null {
  if (!EXPIRY.from.includes(tx.status) || expiredBy(at(nowMs), at(Date.parse(tx.expiresAt))) !== 'yes') return null;
  return { ...tx, status: EXPIRY.to, updatedAt: tx.expiresAt, expiredAt: tx.expiresAt };
}
export const expiryEvent = EXPIRY.emits;

/**
 * ADR-008: A2/A3 report only APPROVED, PENDING, CANCELED (`x-reported-as`, generated `checkoutStatusOf`).
 * @rule ADR-008
 */
export function checkoutStatus(s: Status): CheckoutStatus {
  return checkoutStatusOf[s];
}

/**
 * The `PartnerTransaction` record.
 * @rule partner-record, ADR-013, ADR-048 (items in the stored order, the request's)
 */
export function partnerView(tx: TransactionRecord, merchant: MerchantView) {
  return {
    id: tx.id,
    orderReference: tx.orderReference,
    vendorReference: tx.vendorReference,
    status: tx.status,
    totalAmount: centimesToNumber(tx.totalCentimes),
    currency: tx.currency,
    customerPhone: tx.customerPhone,
    merchantName: merchant.name,
    storeName: merchant.storeName,
    items: tx.items.map((i) => ({
      id: i.id,
      name: i.name,
      reference: i.reference,
      quantity: i.quantity,
      unitPrice: centimesToNumber(i.unitPriceCentimes),
      categoryId: i.categoryId,
    })),
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
  };
}

/**
 * The `TransactionStatusRecord` of A2 (dates per ADR-007; updated_at = created_at before any change).
 * @rule a2-status-record
 */
export function statusRecordView(tx: TransactionRecord, merchant: MerchantView) {
  const created = Date.parse(tx.createdAt);
  return {
    status: checkoutStatus(tx.status),
    transaction_id: tx.id,
    payment_intent_id: tx.paymentIntentId ?? '',
    amount: centimesToNumber(tx.totalCentimes),
    currency: tx.currency,
    merchant_name: merchant.name,
    store_name: merchant.storeName,
    customer_phone: tx.customerPhone,
    created_at: localDateTime(created),
    updated_at: localDateTime(tx.updatedAt === null ? created : Date.parse(tx.updatedAt)),
  };
}

/**
 * The `TransactionVerification` of A3.
 * @rule a3-verification
 */
export function verificationView(tx: TransactionRecord) {
  return { id: tx.id, status: checkoutStatus(tx.status), amount: centimesToNumber(tx.totalCentimes), currency: tx.currency };
}

/**
 * The confirmation SMS text.
 * @rule confirmation-sms
 */
export function confirmationSms(merchantName: string, tx: TransactionRecord, windowSeconds: number): string {
  return confirmationSmsText({ merchantName, amount: formatCentimes(tx.totalCentimes), orderReference: tx.orderReference, windowSeconds });
}
