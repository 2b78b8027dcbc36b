/**
 * Records ↔ rows, shared by the SQLite store (the embedded default) and the PostgreSQL store:
 * one entry per collection: its table, key column, the columns a record is written to, and the
 * record read back from a row. Each store's migrations create these columns (one name each,
 * here); a store reads its rows with its own `Decode` (how its driver returns times, booleans
 * and JSON). Fields that are queried, indexed or constrained are columns; documents the server
 * built and never queries inside (transaction and session items, a delivery attempt, a webhook
 * setting) are JSON text, which keeps their bytes; a webhook payload is text, the exact body sent.
 *
 * Times are written as the records' ISO 8601 strings (millisecond precision, UTC) and read back
 * identical. Records are rebuilt in their declared key order.
 */
import type {
  CollectionName,
  Collections,
  MerchantStateRecord,
  FaultRuleRecord,
  ApiLogRecord,
  OutboxEvent,
  PaymentIntentRecord,
  SessionRecord,
  SmsRecord,
  TransactionRecord,
} from '../domain/types.ts';

export type Row = Record<string, unknown>;

/** How a store's driver returns a column's value. */
export interface Decode {
  /** A time column as the record's ISO 8601 string. */
  time(v: unknown): string;
  bool(v: unknown): boolean;
  /** A JSON column (or the outbox's `attempts` aggregate) as the value. */
  json(v: unknown): unknown;
}

export interface Table<C extends CollectionName> {
  name: string;
  key: string;
  /** The key is a uuid (a `uuid` column on PostgreSQL): a key of another form names no row. */
  uuidKey: boolean;
  /** The column holding the merchant's id (the key itself for merchant state). */
  merchant: string;
  /** Each column written, with its value from a record (one place for both stores). */
  write: Readonly<Record<string, (v: Collections[C]) => unknown>>;
  /** The record of a row (an outbox row with its `attempts` column, oldest first). */
  record(row: Row, d: Decode): Collections[C];
}

const num = (v: unknown): number => Number(v);
const str = (v: unknown): string => v as string;
const strOrNull = (v: unknown): string | null => (v === null ? null : (v as string));
const json = (v: unknown): string => JSON.stringify(v);

const transactions: Table<'transactions'> = {
  name: 'transactions',
  key: 'id',
  uuidKey: true,
  merchant: 'merchant_id',
  write: {
    id: (t) => t.id,
    merchant_id: (t) => t.merchantId,
    kind: (t) => t.kind,
    order_reference: (t) => t.orderReference,
    vendor_reference: (t) => t.vendorReference,
    status: (t) => t.status,
    total_centimes: (t) => t.totalCentimes,
    currency: (t) => t.currency,
    customer_phone: (t) => t.customerPhone,
    items: (t) => json(t.items),
    created_at: (t) => t.createdAt,
    updated_at: (t) => t.updatedAt,
    expires_at: (t) => t.expiresAt,
    approved_at: (t) => t.approvedAt,
    expired_at: (t) => t.expiredAt,
    session_id: (t) => t.sessionId,
    payment_intent_id: (t) => t.paymentIntentId,
    scenario_operation: (t) => t.scenario?.operationId ?? null,
    scenario_due_at: (t) => t.scenario?.dueAt ?? null,
  },
  record: (r, d): TransactionRecord => ({
    id: str(r.id),
    kind: r.kind as TransactionRecord['kind'],
    merchantId: str(r.merchant_id),
    orderReference: str(r.order_reference),
    vendorReference: strOrNull(r.vendor_reference),
    status: r.status as TransactionRecord['status'],
    totalCentimes: num(r.total_centimes),
    currency: r.currency as 'MAD',
    customerPhone: str(r.customer_phone),
    items: d.json(r.items) as TransactionRecord['items'],
    createdAt: d.time(r.created_at),
    updatedAt: r.updated_at === null ? null : d.time(r.updated_at),
    expiresAt: d.time(r.expires_at),
    approvedAt: r.approved_at === null ? null : d.time(r.approved_at),
    expiredAt: r.expired_at === null ? null : d.time(r.expired_at),
    sessionId: strOrNull(r.session_id),
    paymentIntentId: strOrNull(r.payment_intent_id),
    ...(r.scenario_operation === null ? {} : { scenario: { operationId: str(r.scenario_operation), dueAt: d.time(r.scenario_due_at) } }),
  }),
};

const sessions: Table<'sessions'> = {
  name: 'sessions',
  key: 'id',
  uuidKey: false,
  merchant: 'merchant_id',
  write: {
    id: (s) => s.id,
    merchant_id: (s) => s.merchantId,
    token_digest: (s) => s.tokenDigest,
    total_centimes: (s) => s.totalCentimes,
    currency: (s) => s.currency,
    items: (s) => json(s.items),
    created_at: (s) => s.createdAt,
    expires_at: (s) => s.expiresAt,
    test_mode: (s) => s.testMode,
    payment_intent_id: (s) => s.paymentIntentId,
    transaction_id: (s) => s.transactionId,
  },
  record: (r, d): SessionRecord => ({
    id: str(r.id),
    merchantId: str(r.merchant_id),
    tokenDigest: str(r.token_digest),
    totalCentimes: num(r.total_centimes),
    currency: r.currency as 'MAD',
    items: d.json(r.items) as SessionRecord['items'],
    createdAt: d.time(r.created_at),
    expiresAt: d.time(r.expires_at),
    testMode: d.bool(r.test_mode),
    paymentIntentId: strOrNull(r.payment_intent_id),
    transactionId: strOrNull(r.transaction_id),
  }),
};

const paymentIntents: Table<'paymentIntents'> = {
  name: 'payment_intents',
  key: 'id',
  uuidKey: true,
  merchant: 'merchant_id',
  write: {
    id: (p) => p.id,
    session_id: (p) => p.sessionId,
    merchant_id: (p) => p.merchantId,
    flow: (p) => p.flow,
    locale: (p) => p.locale,
    redirect_url: (p) => p.redirectUrl,
    origin: (p) => p.origin,
    created_at: (p) => p.createdAt,
  },
  record: (r, d): PaymentIntentRecord => ({
    id: str(r.id),
    sessionId: str(r.session_id),
    merchantId: str(r.merchant_id),
    flow: r.flow as PaymentIntentRecord['flow'],
    locale: r.locale as PaymentIntentRecord['locale'],
    redirectUrl: strOrNull(r.redirect_url),
    origin: strOrNull(r.origin),
    createdAt: d.time(r.created_at),
  }),
};

const sms: Table<'sms'> = {
  name: 'sms',
  key: 'id',
  uuidKey: true,
  merchant: 'merchant_id',
  write: {
    id: (s) => s.id,
    merchant_id: (s) => s.merchantId,
    to_phone: (s) => s.to,
    body: (s) => s.body,
    transaction_id: (s) => s.transactionId,
    sent_at: (s) => s.sentAt,
  },
  record: (r, d): SmsRecord => ({
    id: str(r.id),
    merchantId: str(r.merchant_id),
    to: str(r.to_phone),
    body: str(r.body),
    transactionId: str(r.transaction_id),
    sentAt: d.time(r.sent_at),
  }),
};

/** An outbox row; its attempts are rows of `webhook_attempts` (outbox_id, attempt from 1, detail as JSON text), read as one `attempts` column. */
const outbox: Table<'outbox'> = {
  name: 'webhook_outbox',
  key: 'id',
  uuidKey: false,
  merchant: 'merchant_id',
  write: {
    id: (e) => e.id,
    merchant_id: (e) => e.merchantId,
    event: (e) => e.event,
    transaction_id: (e) => e.transactionId,
    payload: (e) => json(e.payload),
    created_at: (e) => e.createdAt,
    state: (e) => e.state,
    url: (e) => e.url,
    next_attempt_at: (e) => e.nextAttemptAt,
  },
  record: (r, d): OutboxEvent => ({
    id: str(r.id),
    merchantId: str(r.merchant_id),
    event: r.event as OutboxEvent['event'],
    transactionId: str(r.transaction_id),
    payload: JSON.parse(str(r.payload)) as OutboxEvent['payload'],
    createdAt: d.time(r.created_at),
    state: r.state as OutboxEvent['state'],
    url: strOrNull(r.url),
    nextAttemptAt: r.next_attempt_at === null ? null : d.time(r.next_attempt_at),
    attempts: d.json(r.attempts) as OutboxEvent['attempts'],
  }),
};

const merchantState: Table<'merchantState'> = {
  name: 'merchant_state',
  key: 'merchant_id',
  uuidKey: false,
  merchant: 'merchant_id',
  write: {
    merchant_id: (m) => m.id,
    clock_offset_seconds: (m) => m.clockOffsetSeconds,
    endpoint_enabled: (m) => m.endpointEnabled,
    webhook: (m) => (m.webhook === undefined ? null : json(m.webhook)),
    fault_rule: (m) => (m.faultRule === undefined ? null : json(m.faultRule)),
    api_log: (m) => (m.apiLog === undefined ? null : json(m.apiLog)),
  },
  record: (r, d): MerchantStateRecord => ({
    id: str(r.merchant_id),
    clockOffsetSeconds: num(r.clock_offset_seconds),
    endpointEnabled: d.bool(r.endpoint_enabled),
    ...(r.webhook === null ? {} : { webhook: d.json(r.webhook) as NonNullable<MerchantStateRecord['webhook']> }),
    ...(r.fault_rule === null || r.fault_rule === undefined ? {} : { faultRule: d.json(r.fault_rule) as FaultRuleRecord }),
    ...(r.api_log === null || r.api_log === undefined ? {} : { apiLog: d.json(r.api_log) as ApiLogRecord }),
  }),
};

export const TABLES: { readonly [C in CollectionName]: Table<C> } = {
  transactions,
  sessions,
  paymentIntents,
  sms,
  outbox,
  merchantState,
};

/** Writes in this order (referenced records first); deletes in the reverse. */
export const WRITE_ORDER: readonly CollectionName[] = ['transactions', 'sessions', 'paymentIntents', 'sms', 'outbox', 'merchantState'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** False when `k` cannot name a row of `c` (a uuid key of another form, as the memory store would not find it either). */
export function isKeyOf(c: CollectionName, k: string): boolean {
  return !TABLES[c].uuidKey || UUID.test(k);
}

/** The values of record `v` of `c`, in the order of its columns (`upsertSql`). */
export function rowValues<C extends CollectionName>(c: C, v: Collections[C]): unknown[] {
  return Object.values(TABLES[c].write as Record<string, (v: Collections[C]) => unknown>).map((f) => f(v));
}

/** The statements `upsertSql` made, by collection and extra assignments: one text per statement, not one per write. */
const upserts = new Map<string, string>();

/**
 * `INSERT … ON CONFLICT (key) DO UPDATE` of `c`'s columns, with `$1`… placeholders (PostgreSQL's;
 * the SQLite store maps them to `?1`…), `alsoSet` more assignments on update. Made once per
 * statement: rebuilt on each write (and hashed again for the cache of prepared statements), it
 * was most of the 10 % of allocated bytes that a heap sample of the reference server under B1
 * load put on the frame applying writes (2 % since; docs/performance.md, X).
 */
export function upsertSql(c: CollectionName, alsoSet: readonly string[] = []): string {
  const id = `${c}\n${alsoSet.join('\n')}`;
  let text = upserts.get(id);
  if (text === undefined) {
    const t = TABLES[c];
    const cols = Object.keys(t.write);
    const set = [...cols.filter((x) => x !== t.key).map((x) => `${x} = excluded.${x}`), ...alsoSet];
    text = `INSERT INTO ${t.name} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
          ON CONFLICT (${t.key}) DO UPDATE SET ${set.join(', ')}`;
    upserts.set(id, text);
  }
  return text;
}
