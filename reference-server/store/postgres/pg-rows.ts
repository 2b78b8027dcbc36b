/**
 * Records ↔ rows of the PostgreSQL store, one entry per collection: its table, key column,
 * the columns a record is written to, and the record read back from a row. Fields that are
 * queried, indexed or constrained are columns; documents the server built and never queries
 * inside (transaction and session items, a delivery attempt, a webhook setting) are `json`,
 * which keeps their bytes; a webhook payload is text, the exact body sent.
 *
 * Times are `timestamptz(3)`: the records' ISO 8601 strings (millisecond precision, UTC) read
 * back identical. Records are rebuilt in their declared key order.
 */
import type {
  ApiLogRecord,
  CollectionName,
  Collections,
  FaultRuleRecord,
  MerchantStateRecord,
  OutboxEvent,
  PaymentIntentRecord,
  SessionRecord,
  SmsRecord,
  TransactionRecord,
} from '../../domain/types.ts';

type Row = Record<string, unknown>;

export interface Table<C extends CollectionName> {
  name: string;
  key: string;
  /** The key column is a `uuid`: a key of another form names no row. */
  uuidKey: boolean;
  /** The column holding the merchant's id (the key itself for merchant state). */
  merchant: string;
  /** The columns written, in the order of `values`. */
  columns: readonly string[];
  values(v: Collections[C]): unknown[];
  /** The select list (table alias `r`). */
  select: string;
  record(row: Row): Collections[C];
}

const time = (v: unknown): string => (v as Date).toISOString();
const timeOrNull = (v: unknown): string | null => (v === null ? null : time(v));
const num = (v: unknown): number => Number(v);
const str = (v: unknown): string => v as string;
const strOrNull = (v: unknown): string | null => (v === null ? null : (v as string));
const json = (v: unknown): string => JSON.stringify(v);

const transactions: Table<'transactions'> = {
  name: 'transactions',
  key: 'id',
  uuidKey: true,
  merchant: 'merchant_id',
  columns: [
    'id',
    'merchant_id',
    'kind',
    'order_reference',
    'vendor_reference',
    'status',
    'total_centimes',
    'currency',
    'customer_phone',
    'items',
    'created_at',
    'updated_at',
    'expires_at',
    'approved_at',
    'expired_at',
    'session_id',
    'payment_intent_id',
    'scenario_operation',
    'scenario_due_at',
  ],
  values: (t) => [
    t.id,
    t.merchantId,
    t.kind,
    t.orderReference,
    t.vendorReference,
    t.status,
    t.totalCentimes,
    t.currency,
    t.customerPhone,
    json(t.items),
    t.createdAt,
    t.updatedAt,
    t.expiresAt,
    t.approvedAt,
    t.expiredAt,
    t.sessionId,
    t.paymentIntentId,
    t.scenario?.operationId ?? null,
    t.scenario?.dueAt ?? null,
  ],
  select: 'r.*',
  record: (r): TransactionRecord => ({
    id: str(r.id),
    kind: r.kind as TransactionRecord['kind'],
    merchantId: str(r.merchant_id),
    orderReference: str(r.order_reference),
    vendorReference: strOrNull(r.vendor_reference),
    status: r.status as TransactionRecord['status'],
    totalCentimes: num(r.total_centimes),
    currency: r.currency as 'MAD',
    customerPhone: str(r.customer_phone),
    items: r.items as TransactionRecord['items'],
    createdAt: time(r.created_at),
    updatedAt: timeOrNull(r.updated_at),
    expiresAt: time(r.expires_at),
    approvedAt: timeOrNull(r.approved_at),
    expiredAt: timeOrNull(r.expired_at),
    sessionId: strOrNull(r.session_id),
    paymentIntentId: strOrNull(r.payment_intent_id),
    ...(r.scenario_operation === null ? {} : { scenario: { operationId: str(r.scenario_operation), dueAt: time(r.scenario_due_at) } }),
  }),
};

const sessions: Table<'sessions'> = {
  name: 'sessions',
  key: 'id',
  uuidKey: false,
  merchant: 'merchant_id',
  columns: [
    'id',
    'merchant_id',
    'token_digest',
    'total_centimes',
    'currency',
    'items',
    'created_at',
    'expires_at',
    'test_mode',
    'payment_intent_id',
    'transaction_id',
  ],
  values: (s) => [
    s.id,
    s.merchantId,
    s.tokenDigest,
    s.totalCentimes,
    s.currency,
    json(s.items),
    s.createdAt,
    s.expiresAt,
    s.testMode,
    s.paymentIntentId,
    s.transactionId,
  ],
  select: 'r.*',
  record: (r): SessionRecord => ({
    id: str(r.id),
    merchantId: str(r.merchant_id),
    tokenDigest: str(r.token_digest),
    totalCentimes: num(r.total_centimes),
    currency: r.currency as 'MAD',
    items: r.items as SessionRecord['items'],
    createdAt: time(r.created_at),
    expiresAt: time(r.expires_at),
    testMode: r.test_mode as boolean,
    paymentIntentId: strOrNull(r.payment_intent_id),
    transactionId: strOrNull(r.transaction_id),
  }),
};

const paymentIntents: Table<'paymentIntents'> = {
  name: 'payment_intents',
  key: 'id',
  uuidKey: true,
  merchant: 'merchant_id',
  columns: ['id', 'session_id', 'merchant_id', 'flow', 'locale', 'redirect_url', 'origin', 'created_at'],
  values: (p) => [p.id, p.sessionId, p.merchantId, p.flow, p.locale, p.redirectUrl, p.origin, p.createdAt],
  select: 'r.*',
  record: (r): PaymentIntentRecord => ({
    id: str(r.id),
    sessionId: str(r.session_id),
    merchantId: str(r.merchant_id),
    flow: r.flow as PaymentIntentRecord['flow'],
    locale: r.locale as PaymentIntentRecord['locale'],
    redirectUrl: strOrNull(r.redirect_url),
    origin: strOrNull(r.origin),
    createdAt: time(r.created_at),
  }),
};

const sms: Table<'sms'> = {
  name: 'sms',
  key: 'id',
  uuidKey: true,
  merchant: 'merchant_id',
  columns: ['id', 'merchant_id', 'to_phone', 'body', 'transaction_id', 'sent_at'],
  values: (s) => [s.id, s.merchantId, s.to, s.body, s.transactionId, s.sentAt],
  select: 'r.*',
  record: (r): SmsRecord => ({
    id: str(r.id),
    merchantId: str(r.merchant_id),
    to: str(r.to_phone),
    body: str(r.body),
    transactionId: str(r.transaction_id),
    sentAt: time(r.sent_at),
  }),
};

/** An outbox row with its attempts, oldest first (the `attempts` column of `select`). */
const outbox: Table<'outbox'> = {
  name: 'webhook_outbox',
  key: 'id',
  uuidKey: false,
  merchant: 'merchant_id',
  columns: ['id', 'merchant_id', 'event', 'transaction_id', 'payload', 'created_at', 'state', 'url', 'next_attempt_at'],
  values: (e) => [e.id, e.merchantId, e.event, e.transactionId, json(e.payload), e.createdAt, e.state, e.url, e.nextAttemptAt],
  select: `r.*, COALESCE((SELECT json_agg(a.detail ORDER BY a.attempt) FROM webhook_attempts a WHERE a.outbox_id = r.id), '[]'::json) AS attempts`,
  record: (r): OutboxEvent => ({
    id: str(r.id),
    merchantId: str(r.merchant_id),
    event: r.event as OutboxEvent['event'],
    transactionId: str(r.transaction_id),
    payload: JSON.parse(str(r.payload)) as OutboxEvent['payload'],
    createdAt: time(r.created_at),
    state: r.state as OutboxEvent['state'],
    url: strOrNull(r.url),
    nextAttemptAt: timeOrNull(r.next_attempt_at),
    attempts: r.attempts as OutboxEvent['attempts'],
  }),
};

const merchantState: Table<'merchantState'> = {
  name: 'merchant_state',
  key: 'merchant_id',
  uuidKey: false,
  merchant: 'merchant_id',
  columns: ['merchant_id', 'clock_offset_seconds', 'endpoint_enabled', 'webhook', 'fault_rule', 'api_log'],
  values: (m) => [
    m.id,
    m.clockOffsetSeconds,
    m.endpointEnabled,
    m.webhook === undefined ? null : json(m.webhook),
    m.faultRule === undefined ? null : json(m.faultRule),
    m.apiLog === undefined ? null : json(m.apiLog),
  ],
  select: 'r.*',
  record: (r): MerchantStateRecord => ({
    id: str(r.merchant_id),
    clockOffsetSeconds: num(r.clock_offset_seconds),
    endpointEnabled: r.endpoint_enabled as boolean,
    ...(r.webhook === null ? {} : { webhook: r.webhook as NonNullable<MerchantStateRecord['webhook']> }),
    ...(r.fault_rule === null || r.fault_rule === undefined ? {} : { faultRule: r.fault_rule as FaultRuleRecord }),
    ...(r.api_log === null || r.api_log === undefined ? {} : { apiLog: r.api_log as ApiLogRecord }),
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

/** `INSERT … ON CONFLICT (key) DO UPDATE` of one record of `c`, as text and parameters. */
export function upsert<C extends CollectionName>(c: C, v: Collections[C]): { text: string; values: unknown[] } {
  const t = TABLES[c];
  const cols = t.columns;
  const set = cols.filter((x) => x !== t.key).map((x) => `${x} = EXCLUDED.${x}`);
  if (c === 'outbox') set.push('claimed_until = NULL'); // a recorded attempt or state ends a claim
  return {
    text: `INSERT INTO ${t.name} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
           ON CONFLICT (${t.key}) DO UPDATE SET ${set.join(', ')}`,
    values: t.values(v),
  };
}

/** Attempts are appended only: insert the new ones (numbered from 1), drop any beyond the record's. */
export function attemptStatements(e: OutboxEvent): Array<{ text: string; values: unknown[] }> {
  const out: Array<{ text: string; values: unknown[] }> = [];
  if (e.attempts.length > 0)
    out.push({
      text: `INSERT INTO webhook_attempts (outbox_id, attempt, detail)
             SELECT $1, x.n, x.d FROM json_array_elements($2::json) WITH ORDINALITY AS x(d, n)
             ON CONFLICT (outbox_id, attempt) DO NOTHING`,
      values: [e.id, JSON.stringify(e.attempts)],
    });
  out.push({ text: 'DELETE FROM webhook_attempts WHERE outbox_id = $1 AND attempt > $2', values: [e.id, e.attempts.length] });
  return out;
}
