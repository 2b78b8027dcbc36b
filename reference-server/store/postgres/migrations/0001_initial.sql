-- The reference server's state in PostgreSQL (a shared sandbox: several instances, one database).
-- Amounts are integer centimes; times are timestamptz with millisecond precision (the records'
-- ISO 8601 strings). Status and enum values are not repeated here as CHECK constraints: the spec
-- states them and the server validates them; the database enforces what only it can make exact
-- across instances (uniqueness, conditional updates, claims).

CREATE TABLE merchant_state (
  merchant_id          text PRIMARY KEY,
  -- The sandbox clock of the merchant (ADR-020): seconds added to real time.
  clock_offset_seconds bigint  NOT NULL DEFAULT 0,
  endpoint_enabled     boolean NOT NULL DEFAULT true
);

CREATE TABLE transactions (
  id                uuid PRIMARY KEY,
  merchant_id       text        NOT NULL,
  kind              text        NOT NULL,
  order_reference   text        NOT NULL UNIQUE,
  vendor_reference  text,
  status            text        NOT NULL,
  total_centimes    bigint      NOT NULL,
  currency          text        NOT NULL,
  customer_phone    text        NOT NULL,
  items             jsonb       NOT NULL,
  created_at        timestamptz(3) NOT NULL,
  updated_at        timestamptz(3),
  expires_at        timestamptz(3) NOT NULL,
  approved_at       timestamptz(3),
  expired_at        timestamptz(3),
  session_id        text,
  payment_intent_id uuid
);
-- vendorReference is unique per merchant (B1's 409), whichever instance answers.
\ir ../../vendor-reference-unique.sql
-- The expiry sweep reads only what can expire.
CREATE INDEX transactions_pending_expiry ON transactions (merchant_id, expires_at) WHERE status = 'PENDING';
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, created_at DESC, id);

CREATE TABLE sessions (
  id                text PRIMARY KEY,
  merchant_id       text        NOT NULL,
  -- SHA-256 hex of the token; the token itself is never stored.
  token_digest      text        NOT NULL UNIQUE,
  total_centimes    bigint      NOT NULL,
  currency          text        NOT NULL,
  items             jsonb       NOT NULL,
  created_at        timestamptz(3) NOT NULL,
  expires_at        timestamptz(3) NOT NULL,
  test_mode         boolean     NOT NULL,
  payment_intent_id uuid,
  transaction_id    uuid UNIQUE REFERENCES transactions (id)
);

CREATE TABLE payment_intents (
  id           uuid PRIMARY KEY,
  session_id   text        NOT NULL REFERENCES sessions (id),
  merchant_id  text        NOT NULL,
  flow         text        NOT NULL,
  locale       text        NOT NULL,
  redirect_url text,
  origin       text,
  created_at   timestamptz(3) NOT NULL
);
CREATE INDEX payment_intents_session ON payment_intents (session_id);

CREATE TABLE sms (
  id             uuid PRIMARY KEY,
  merchant_id    text        NOT NULL,
  to_phone       text        NOT NULL,
  body           text        NOT NULL,
  transaction_id uuid        NOT NULL REFERENCES transactions (id),
  sent_at        timestamptz(3) NOT NULL
);
CREATE INDEX sms_merchant ON sms (merchant_id, sent_at, id);

-- The durable outbox: one row per webhook event, written in the same transaction as the
-- transition it reports. `payload` is the exact body as sent (text, not jsonb: bytes must not change).
CREATE TABLE webhook_outbox (
  id              text PRIMARY KEY,
  merchant_id     text        NOT NULL,
  event           text        NOT NULL,
  transaction_id  uuid        NOT NULL REFERENCES transactions (id),
  payload         text        NOT NULL,
  created_at      timestamptz(3) NOT NULL,
  state           text        NOT NULL,
  url             text,
  -- On the merchant's clock, like created_at; due when <= now + the merchant's clock offset.
  next_attempt_at timestamptz(3)
);
-- What a deliverer claims (FOR UPDATE SKIP LOCKED), oldest first.
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_outbox_merchant ON webhook_outbox (merchant_id, created_at DESC, id);

-- Every attempt of a delivery, as the sandbox deliveries list shows it (WebhookDeliveryAttempt).
CREATE TABLE webhook_attempts (
  outbox_id text    NOT NULL REFERENCES webhook_outbox (id),
  attempt   integer NOT NULL,
  detail    jsonb   NOT NULL,
  PRIMARY KEY (outbox_id, attempt)
);

-- Fixed-window rate-limit counters, one row per key and window: an atomic
-- INSERT … ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count is exact across instances.
CREATE TABLE rate_limit_windows (
  key          text        NOT NULL,
  window_start timestamptz(3) NOT NULL,
  count        integer     NOT NULL,
  PRIMARY KEY (key, window_start)
);
