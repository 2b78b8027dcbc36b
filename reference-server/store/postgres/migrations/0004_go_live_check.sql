-- The go-live check's sandbox state of a merchant (issue 31): its fault rule (failures on
-- demand, ADR-052; the calls it answered are counted by the rate-limit windows' counters) and
-- its recorded API calls (ADR-056), each a JSON document of the merchant state record.
ALTER TABLE merchant_state ADD COLUMN fault_rule json;
ALTER TABLE merchant_state ADD COLUMN api_log json;
