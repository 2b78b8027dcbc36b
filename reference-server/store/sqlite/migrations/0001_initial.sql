-- The reference server's state in SQLite (the embedded store: one process, one file; ADR-046).
-- The columns are those of the PostgreSQL store (names and order in store/rows.ts); here times
-- are the records' ISO 8601 strings (UTC, milliseconds: text order is time order), booleans are
-- 0/1, JSON documents are text kept byte for byte. Enum values are not repeated as CHECK
-- constraints: the spec states them and the server validates them. The database enforces what
-- it must make exact: uniqueness, and each transaction's writes all or none.
-- `seq` (the rowid) is insertion order: the SMS and delivery lists and the event stream follow it.

CREATE TABLE transactions (
  seq                INTEGER PRIMARY KEY,
  id                 TEXT    NOT NULL UNIQUE,
  merchant_id        TEXT    NOT NULL,
  kind               TEXT    NOT NULL,
  order_reference    TEXT    NOT NULL UNIQUE,
  vendor_reference   TEXT,
  status             TEXT    NOT NULL,
  total_centimes     INTEGER NOT NULL,
  currency           TEXT    NOT NULL,
  customer_phone     TEXT    NOT NULL,
  items              TEXT    NOT NULL,
  created_at         TEXT    NOT NULL,
  updated_at         TEXT,
  expires_at         TEXT    NOT NULL,
  approved_at        TEXT,
  expired_at         TEXT,
  session_id         TEXT,
  payment_intent_id  TEXT,
  -- A sandbox scenario's customer action (ADR-043), found by the sweep when due.
  scenario_operation TEXT,
  scenario_due_at    TEXT
) STRICT;
-- vendorReference is unique per merchant (B1's 409).
\ir ../../vendor-reference-unique.sql
-- The transactions list: newest first by creation time, then id.
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, created_at DESC, id DESC);
-- The expiry sweep and the merchants it visits read only what can expire.
CREATE INDEX transactions_pending_expiry ON transactions (merchant_id, expires_at, seq) WHERE status = 'PENDING';
CREATE INDEX transactions_scenario_due ON transactions (merchant_id, scenario_due_at, seq)
  WHERE status = 'PENDING' AND scenario_due_at IS NOT NULL;
-- What still holds credit or may move (the credit limit).
CREATE INDEX transactions_open ON transactions (merchant_id, seq) WHERE status IN ('PENDING', 'APPROVED');

CREATE TABLE sessions (
  id                TEXT    PRIMARY KEY,
  merchant_id       TEXT    NOT NULL,
  -- SHA-256 hex of the token; the token itself is never stored.
  token_digest      TEXT    NOT NULL UNIQUE,
  total_centimes    INTEGER NOT NULL,
  currency          TEXT    NOT NULL,
  items             TEXT    NOT NULL,
  created_at        TEXT    NOT NULL,
  expires_at        TEXT    NOT NULL,
  test_mode         INTEGER NOT NULL,
  payment_intent_id TEXT,
  transaction_id    TEXT UNIQUE
) STRICT;
CREATE INDEX sessions_merchant ON sessions (merchant_id);

CREATE TABLE payment_intents (
  id           TEXT PRIMARY KEY,
  session_id   TEXT NOT NULL,
  merchant_id  TEXT NOT NULL,
  flow         TEXT NOT NULL,
  locale       TEXT NOT NULL,
  redirect_url TEXT,
  origin       TEXT,
  created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX payment_intents_session ON payment_intents (session_id);
CREATE INDEX payment_intents_merchant ON payment_intents (merchant_id);

CREATE TABLE sms (
  seq            INTEGER PRIMARY KEY,
  id             TEXT NOT NULL UNIQUE,
  merchant_id    TEXT NOT NULL,
  to_phone       TEXT NOT NULL,
  body           TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  sent_at        TEXT NOT NULL
) STRICT;
CREATE INDEX sms_merchant_seq ON sms (merchant_id, seq);
CREATE INDEX sms_transaction_seq ON sms (transaction_id, seq);

-- The durable outbox: one row per webhook event, written in the same transaction as the
-- transition it reports. `payload` is the exact body as sent.
CREATE TABLE webhook_outbox (
  seq             INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  merchant_id     TEXT NOT NULL,
  event           TEXT NOT NULL,
  transaction_id  TEXT NOT NULL,
  payload         TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  state           TEXT NOT NULL,
  url             TEXT,
  -- On the merchant's clock, like created_at; due when <= now + the merchant's clock offset.
  next_attempt_at TEXT
) STRICT;
-- What the deliverer claims: each merchant's pending events by due time.
CREATE INDEX webhook_outbox_due ON webhook_outbox (merchant_id, next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_outbox_merchant_seq ON webhook_outbox (merchant_id, seq);
CREATE INDEX webhook_outbox_transaction_seq ON webhook_outbox (transaction_id, seq);

-- Every attempt of a delivery (WebhookDeliveryAttempt), numbered from 1, `detail` as JSON text.
CREATE TABLE webhook_attempts (
  outbox_id TEXT    NOT NULL,
  attempt   INTEGER NOT NULL,
  detail    TEXT    NOT NULL,
  PRIMARY KEY (outbox_id, attempt)
) STRICT, WITHOUT ROWID;

CREATE TABLE merchant_state (
  merchant_id          TEXT    PRIMARY KEY,
  -- The sandbox clock of the merchant (ADR-020): seconds added to real time.
  clock_offset_seconds INTEGER NOT NULL DEFAULT 0,
  endpoint_enabled     INTEGER NOT NULL DEFAULT 1,
  -- The run-time webhook endpoint (ADR-042), absent when the merchants file's applies.
  webhook              TEXT
) STRICT;
