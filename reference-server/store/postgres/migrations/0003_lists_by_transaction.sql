-- The sandbox lists filtered by transaction (sandboxListSms and sandboxListWebhookDeliveries
-- `transactionId`, ADR-028): one index entry per message or event, in the list's order.
CREATE INDEX sms_transaction_seq ON sms (transaction_id, seq);
CREATE INDEX webhook_outbox_transaction_seq ON webhook_outbox (transaction_id, seq);
