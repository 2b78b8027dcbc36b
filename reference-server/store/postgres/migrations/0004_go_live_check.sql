-- The sandbox's fault rule of a merchant (failures on demand, ADR-052): the rule as set; the
-- calls it answered are counted by the rate-limit windows' counters (one atomic row per rule).
ALTER TABLE merchant_state ADD COLUMN fault_rule json;
