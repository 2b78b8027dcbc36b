-- What the repository needs beyond 0001 (no server had written to those tables yet).

-- Records are documents the server built: `json` keeps their key order and bytes exactly as
-- written (jsonb would reorder keys); nothing queries inside them.
ALTER TABLE transactions ALTER COLUMN items TYPE json USING items::json;
ALTER TABLE sessions ALTER COLUMN items TYPE json USING items::json;
ALTER TABLE webhook_attempts ALTER COLUMN detail TYPE json USING detail::json;

-- A sandbox scenario's customer action (ADR-043), found by the sweep when due.
ALTER TABLE transactions
  ADD COLUMN scenario_operation text,
  ADD COLUMN scenario_due_at    timestamptz(3);
CREATE INDEX transactions_scenario_due ON transactions (merchant_id, scenario_due_at)
  WHERE status = 'PENDING' AND scenario_due_at IS NOT NULL;
-- What still holds credit or may move (the credit limit).
CREATE INDEX transactions_open ON transactions (merchant_id) WHERE status IN ('PENDING', 'APPROVED');

-- Insertion order: the SMS and delivery lists and the event stream follow it, other reads break
-- ties with it (times on a merchant's clock can tie or move back, as at a sandbox reset).
ALTER TABLE transactions ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE sms ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE webhook_outbox ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
-- The transactions list: newest first by creation time, then id (both descending).
DROP INDEX transactions_merchant_created;
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, created_at DESC, id DESC);
DROP INDEX sms_merchant;
DROP INDEX webhook_outbox_merchant;
CREATE INDEX sms_merchant_seq ON sms (merchant_id, seq);
CREATE INDEX webhook_outbox_merchant_seq ON webhook_outbox (merchant_id, seq);

-- A delivery's claim: the instance that claimed it owns it until then (database time).
ALTER TABLE webhook_outbox ADD COLUMN claimed_until timestamptz(3);

-- The run-time webhook endpoint (ADR-042), absent when the merchants file's applies.
ALTER TABLE merchant_state ADD COLUMN webhook json;

-- References are checked at commit: a transaction writes related records in any order, and a
-- sandbox reset deletes a merchant's records collection by collection.
ALTER TABLE sessions ALTER CONSTRAINT sessions_transaction_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE payment_intents ALTER CONSTRAINT payment_intents_session_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE sms ALTER CONSTRAINT sms_transaction_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE webhook_outbox ALTER CONSTRAINT webhook_outbox_transaction_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE webhook_attempts ALTER CONSTRAINT webhook_attempts_outbox_id_fkey DEFERRABLE INITIALLY DEFERRED;

-- One fixed window per key, starting at the key's first request (countInWindow): the counter
-- is one row per key, moved to the new window and updated atomically by
-- INSERT … ON CONFLICT (key) DO UPDATE. The key alone is the primary key: a second unique index
-- would make concurrent first requests of a key fail on it instead of counting.
ALTER TABLE rate_limit_windows DROP CONSTRAINT rate_limit_windows_pkey, ADD PRIMARY KEY (key);
