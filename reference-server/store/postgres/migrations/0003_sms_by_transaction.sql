-- The SMS outbox filtered by transaction (sandboxListSms `transactionId`, ADR-028): one index
-- entry per message, in the list's order.
CREATE INDEX sms_transaction_seq ON sms (transaction_id, seq);
