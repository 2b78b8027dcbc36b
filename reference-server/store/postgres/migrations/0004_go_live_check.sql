-- The go-live check's sandbox state of a merchant (issue 31): its fault rule (failures on
-- demand, ADR-052, with the calls it answered) and its recorded API calls (ADR-056), each a
-- JSON document of the merchant state record, written under the row's lock.
ALTER TABLE merchant_state ADD COLUMN fault_rule json;
ALTER TABLE merchant_state ADD COLUMN api_log json;
