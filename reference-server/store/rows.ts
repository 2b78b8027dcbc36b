/**
 * Records ↔ rows, shared by the SQLite store (the embedded default) and the PostgreSQL store:
 * one table of fields per collection, in the record's declared key order, each with how it is
 * written and read. A field's column is its name in snake case (`merchantId` → `merchant_id`)
 * unless it says otherwise; the migrations are where the columns are stated, a store reads its
 * rows with its own `Decode` (how its driver returns times, booleans and JSON). Fields that are
 * queried, indexed or constrained are columns; documents the server built and never queries
 * inside (transaction and session items, a delivery attempt, a webhook setting) are JSON, which
 * keeps their bytes; a webhook payload is text, the exact body sent.
 *
 * Times are written as the records' ISO 8601 strings (millisecond precision, UTC) and read back
 * identical.
 */
import { COLLECTIONS, type CollectionName, type Collections } from '../domain/types.ts';

export type Row = Record<string, unknown>;
/** A row of a record's read: the values of its table's `reads` columns, in that order. */
export type Values = readonly unknown[];

/** How a store's driver returns a column's value. */
export interface Decode {
  /** A time column as the record's ISO 8601 string. */
  time(v: unknown): string;
  bool(v: unknown): boolean;
  /** A JSON column (or the outbox's `attempts` aggregate) as the value. */
  json(v: unknown): unknown;
}

/** A field in one column: its value written (none: a column of the select list, never written), and read back (undefined: absent). */
interface Codec {
  column?: string;
  write?: (v: unknown) => unknown;
  read: (v: unknown, d: Decode) => unknown;
}
/** A field's columns: each name with its value from the field's; the columns it is read from, and the field from their values (`row[at]` on). */
interface Field {
  columns: ReadonlyArray<{ name: string; value: (v: unknown) => unknown }>;
  reads: readonly string[];
  read: (row: Values, at: number, d: Decode) => unknown;
}

const same = (v: unknown): unknown => v;
const text: Codec = { write: same, read: same };
const int: Codec = { write: same, read: Number };
const bool: Codec = { write: same, read: (v, d) => d.bool(v) };
const time: Codec = { write: same, read: (v, d) => d.time(v) };
/** A document in a JSON column (`json` on PostgreSQL, text on SQLite). */
const doc: Codec = { write: (v) => JSON.stringify(v), read: (v, d) => d.json(v) };
/** A document in a text column on both: the webhook payload, the exact body sent. */
const body: Codec = { write: (v) => JSON.stringify(v), read: (v): unknown => JSON.parse(v as string) };
/** Null in the record and in the column. */
const orNull = (c: Codec): Codec => ({
  write: (v) => (v === null ? null : c.write!(v)),
  read: (v, d) => (v === null ? null : c.read(v, d)),
});
/** Absent from the record, null in the column. */
const optional = (c: Codec): Codec => ({
  write: (v) => (v === undefined ? null : c.write!(v)),
  read: (v, d) => (v == null ? undefined : c.read(v, d)),
});
const named = (column: string, c: Codec): Codec => ({ ...c, column });

const snake = (name: string): string => name.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);

function field(name: string, c: Codec): Field {
  const column = c.column ?? snake(name);
  return { columns: c.write ? [{ name: column, value: c.write }] : [], reads: [column], read: (row, at, d) => c.read(row[at], d) };
}

/** A sub-record in columns `<field>_<sub>`, absent when its first column is NULL. */
function group(name: string, subs: Record<string, Codec>): Field {
  const parts = Object.entries(subs).map(([sub, c]) => ({ sub, c, column: `${snake(name)}_${c.column ?? snake(sub)}` }));
  return {
    columns: parts.map(({ sub, c, column }) => ({ name: column, value: (v) => (v === undefined ? null : c.write!((v as Row)[sub])) })),
    reads: parts.map((p) => p.column),
    read: (row, at, d) => (row[at] === null ? undefined : Object.fromEntries(parts.map(({ sub, c }, i) => [sub, c.read(row[at + i], d)]))),
  };
}

export interface Table<C extends CollectionName> {
  name: string;
  /** The key's column (the record's `id`). */
  key: string;
  /** The key is a uuid (a `uuid` column on PostgreSQL): a key of another form names no row. */
  uuidKey: boolean;
  /** The columns written, in the order of `values`. */
  columns: readonly string[];
  /** The values of a record's columns. */
  values(v: Collections[C]): unknown[];
  /** The columns a record is read from, in the order `record` takes their values (an outbox row's `attempts`: computed, the select list names it). */
  reads: readonly string[];
  /** The record of a row of the `reads` columns' values (an outbox row's `attempts`, oldest first). */
  record(row: Values, d: Decode): Collections[C];
}

type Spec<C extends CollectionName> = { [K in keyof Collections[C]]-?: Codec | Record<string, Codec> };

function table<C extends CollectionName>(name: string, uuidKey: boolean, spec: Spec<C>): Table<C> {
  const fields = Object.entries(spec as Record<string, Codec | Record<string, Codec>>).map(([f, s]): [string, Field] => [
    f,
    'read' in s ? field(f, s as Codec) : group(f, s),
  ]);
  const columns = fields.flatMap(([f, x]) => x.columns.map((c) => ({ ...c, field: f })));
  // every row read becomes a record here: plain arrays, an indexed loop, values by position (no row object: node:sqlite
  // builds one property by property, about 2 of a B2 read's 4 µs in the store)
  const names = fields.map(([f]) => f);
  const readers = fields.map(([, x]) => x.read);
  const reads = fields.flatMap(([, x]) => x.reads);
  const at = fields.map((_, i) => fields.slice(0, i).reduce((n, [, x]) => n + x.reads.length, 0));
  return {
    name,
    key: (spec as { id: Codec }).id.column ?? 'id',
    uuidKey,
    columns: columns.map((c) => c.name),
    values: (v) => columns.map((c) => c.value((v as unknown as Row)[c.field])),
    reads,
    record: (row, d) => {
      const out: Row = {};
      for (let i = 0; i < names.length; i++) {
        const v = readers[i]!(row, at[i]!, d);
        if (v !== undefined) out[names[i]!] = v;
      }
      return out as unknown as Collections[C];
    },
  };
}

export const TABLES: { readonly [C in CollectionName]: Table<C> } = {
  transactions: table('transactions', true, {
    id: text,
    kind: text,
    merchantId: text,
    orderReference: text,
    vendorReference: orNull(text),
    status: text,
    totalCentimes: int,
    currency: text,
    customerPhone: text,
    items: doc,
    createdAt: time,
    updatedAt: orNull(time),
    expiresAt: time,
    approvedAt: orNull(time),
    expiredAt: orNull(time),
    sessionId: orNull(text),
    paymentIntentId: orNull(text),
    scenario: { operationId: named('operation', text), dueAt: time },
  }),
  sessions: table('sessions', false, {
    id: text,
    merchantId: text,
    tokenDigest: text,
    totalCentimes: int,
    currency: text,
    items: doc,
    createdAt: time,
    expiresAt: time,
    testMode: bool,
    paymentIntentId: orNull(text),
    transactionId: orNull(text),
  }),
  paymentIntents: table('payment_intents', true, {
    id: text,
    sessionId: text,
    merchantId: text,
    flow: text,
    locale: text,
    redirectUrl: orNull(text),
    origin: orNull(text),
    createdAt: time,
  }),
  sms: table('sms', true, { id: text, merchantId: text, to: named('to_phone', text), body: text, transactionId: text, sentAt: time }),
  /** Its attempts are rows of `webhook_attempts` (outbox_id, attempt from 1, detail as JSON), read as one `attempts` column. */
  outbox: table('webhook_outbox', false, {
    id: text,
    merchantId: text,
    event: text,
    transactionId: text,
    payload: body,
    createdAt: time,
    state: text,
    url: orNull(text),
    nextAttemptAt: orNull(time),
    attempts: { read: (v, d) => d.json(v) },
  }),
  merchantState: table('merchant_state', false, {
    id: named('merchant_id', text),
    clockOffsetMs: int,
    endpointEnabled: bool,
    webhook: optional(doc),
    faultRule: optional(doc),
    apiLog: optional(doc),
  }),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** False when `k` cannot name a row of `c` (a uuid key of another form, as the memory store would not find it either). */
export function isKeyOf(c: CollectionName, k: string): boolean {
  return !TABLES[c].uuidKey || UUID.test(k);
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
    const set = [...t.columns.filter((x) => x !== t.key).map((x) => `${x} = excluded.${x}`), ...alsoSet];
    text = `INSERT INTO ${t.name} (${t.columns.join(', ')}) VALUES (${t.columns.map((_, i) => `$${i + 1}`).join(', ')})
          ON CONFLICT (${t.key}) DO UPDATE SET ${set.join(', ')}`;
    upserts.set(id, text);
  }
  return text;
}

/** An outbox event's attempts are appended only: after inserting the new ones, this drops any beyond the record's (`$2`: how many it has). */
export const DELETE_LATER_ATTEMPTS = 'DELETE FROM webhook_attempts WHERE outbox_id = $1 AND attempt > $2';

/**
 * The statements that delete record `$1` of `c` (`by: 'key'`) or every record of merchant `$1` in
 * it (`by: 'merchant'`), an outbox event's attempts first; the last returns each deleted row's
 * merchant (`m`) and key (`k`).
 */
export function deleteSql(c: CollectionName, by: 'key' | 'merchant'): string[] {
  const t = TABLES[c];
  const where = by === 'key' ? t.key : 'merchant_id';
  return [
    ...(c === 'outbox' ? [`DELETE FROM webhook_attempts WHERE outbox_id IN (SELECT id FROM webhook_outbox WHERE ${where} = $1)`] : []),
    `DELETE FROM ${t.name} WHERE ${where} = $1 RETURNING merchant_id AS m, ${t.key} AS k`,
  ];
}

/** `collections` in the order a merchant's records are deleted: referencing records first (the reverse of `COLLECTIONS`). */
export function deleteOrder(collections: readonly CollectionName[]): CollectionName[] {
  return [...COLLECTIONS].reverse().filter((c) => collections.includes(c));
}
