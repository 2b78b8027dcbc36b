/** Records as stored. Amounts are integer centimes; times are ISO 8601 UTC strings. */
import type { ErrorCode, stateMachine } from '../../generated/contract.ts';
import type { components } from '../../generated/v1/schema.d.ts';
import type { OutboxEvent } from './outbox-event.ts';

export type Status = keyof typeof stateMachine.states;
export type TransactionKind = 'partner' | 'checkout';

export interface ItemRecord {
  id: string;
  name: string;
  reference: string | null;
  quantity: number;
  unitPriceCentimes: number;
  categoryId: number | null;
}

export interface TransactionRecord {
  id: string;
  kind: TransactionKind;
  merchantId: string;
  orderReference: string;
  vendorReference: string | null;
  status: Status;
  totalCentimes: number;
  currency: 'MAD';
  customerPhone: string;
  items: ItemRecord[];
  createdAt: string;
  updatedAt: string | null;
  /** createdAt + the payment window in force when it was created. */
  expiresAt: string;
  approvedAt: string | null;
  expiredAt: string | null;
  sessionId: string | null;
  paymentIntentId: string | null;
  /** A sandbox scenario's customer action (ADR-043): `operationId` applied at `dueAt` (merchant time) if still PENDING. */
  scenario?: { operationId: string; dueAt: string };
}

export interface SessionItemRecord {
  id: string;
  name: string;
  priceCentimes: number;
  quantity: number;
}

export interface SessionRecord {
  id: string;
  merchantId: string;
  /** SHA-256 hex of the token; the token itself is never stored. */
  tokenDigest: string;
  totalCentimes: number;
  currency: 'MAD';
  items: SessionItemRecord[];
  createdAt: string;
  expiresAt: string;
  testMode: boolean;
  paymentIntentId: string | null;
  transactionId: string | null;
}

export interface PaymentIntentRecord {
  id: string;
  sessionId: string;
  merchantId: string;
  flow: 'redirect' | 'popup' | 'button';
  locale: 'en' | 'fr' | 'ar';
  redirectUrl: string | null;
  origin: string | null;
  createdAt: string;
}

export interface SmsRecord {
  id: string;
  merchantId: string;
  to: string;
  body: string;
  transactionId: string;
  sentAt: string;
}

export interface MerchantStateRecord {
  id: string;
  /** The sandbox clock's offset from real time, in milliseconds (ADR-020, ADR-085). */
  clockOffsetMs: number;
  endpointEnabled: boolean;
  /** The webhook endpoint set at run time (ADR-042); absent: the merchants file's. */
  webhook?: WebhookSetting;
  /** The sandbox fault rule (failures on demand, ADR-052); absent: none. */
  faultRule?: FaultRuleRecord;
  /** The API calls recorded for the go-live check (ADR-056); absent: never recorded. */
  apiLog?: ApiLogRecord;
}

/** The recorded API calls of a merchant (ADR-056), oldest first, at most `limit`. */
export interface ApiLogRecord {
  recording: boolean;
  /** ISO 8601, merchant time. */
  startedAt: string;
  limit: number;
  dropped: number;
  entries: ApiLogEntry[];
}

/** An entry of the sandbox's API log: the contract's shape (ADR-056), the same in both variants. */
export type ApiLogEntry = components['schemas']['SandboxApiLog']['entries'][number];

/** A fault rule as set (ADR-052), with the calls it answered so far (counted under the merchant state's lock). */
export interface FaultRuleRecord {
  id: string;
  failure: '500' | '503' | '429' | 'timeout';
  timeoutSeconds: number | null;
  retryAfterSeconds: number | null;
  /** operationIds; null: every operation declaring the `Paylater-Simulate` header. */
  operations: string[] | null;
  times: number;
  /** Calls answered so far (at most `times`). */
  used: number;
  /** ISO 8601, real time. */
  setAt: string;
}

/** A run-time webhook endpoint, and the previous secret while a rotation window is open. */
export interface WebhookSetting {
  url: string | null;
  secret: string | null;
  previousSecret: string | null;
  /** ISO 8601, merchant time. */
  previousSecretExpiresAt: string | null;
}

export type { OutboxEvent };

export interface Collections {
  transactions: TransactionRecord;
  sessions: SessionRecord;
  paymentIntents: PaymentIntentRecord;
  sms: SmsRecord;
  outbox: OutboxEvent;
  merchantState: MerchantStateRecord;
}
export type CollectionName = keyof Collections;
export const COLLECTIONS: readonly CollectionName[] = ['transactions', 'sessions', 'paymentIntents', 'sms', 'outbox', 'merchantState'];

/** One change: put a whole record (`v`) under key `k` of collection `c`, or delete it (`v: null`). */
export type Change = { [C in CollectionName]: { c: C; k: string; v: Collections[C] | null } }[CollectionName];

/** A rule's refusal, as a value: the declared error code and the message to answer with. */
export interface Rejection {
  code: ErrorCode;
  message: string;
}
