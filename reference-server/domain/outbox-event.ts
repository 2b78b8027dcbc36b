/**
 * The outbox event: the webhook delivery record the core writes in the SAME store write as the
 * state change that causes it (durable outbox), and the names and payloads of the events. A
 * domain fact: the state machine names the event of each transition, the transaction rules
 * build it, the store keeps it and the delivery engine (webhooks/) claims and sends it.
 */
import type { V1 } from '../../generated/index.ts';

export type WebhookEventName = 'transaction.approved' | 'transaction.cancelled' | 'transaction.expired';
export type WebhookPayload =
  | V1.components['schemas']['TransactionApprovedEvent']
  | V1.components['schemas']['TransactionCancelledEvent']
  | V1.components['schemas']['TransactionExpiredEvent'];
export type DeliveryState = V1.components['schemas']['WebhookDelivery']['state'];
export type DeliveryAttempt = V1.components['schemas']['WebhookDeliveryAttempt'];

/**
 * One event in the durable outbox: exactly the `WebhookDelivery` record of the spec plus its owner.
 * The core creates it with `state: 'pending'`, `nextAttemptAt: createdAt`, `attempts: []`, `id`
 * from `generateMessageId()` of `webhooks/signing.ts` (or, when the merchant has no webhook URL or
 * secret, `state: 'no_endpoint'`, `nextAttemptAt: null`), then calls `dispatcher.kick()`.
 */
export interface OutboxEvent {
  /** `msg_…`, the `webhook-id`, the same across every attempt. */
  id: string;
  merchantId: string;
  event: WebhookEventName;
  transactionId: string;
  /** The exact body, serialized once with JSON.stringify and sent byte-identical on every attempt. */
  payload: WebhookPayload;
  /** ISO time (merchant's clock) the event was recorded. */
  createdAt: string;
  state: DeliveryState;
  /** The merchant's webhook URL at the time of the event, or null (`no_endpoint`). */
  url: string | null;
  /** ISO time (merchant's clock) of the next attempt, null when none is due. */
  nextAttemptAt: string | null;
  attempts: DeliveryAttempt[];
}
