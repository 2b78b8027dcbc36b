-- The sandbox clock moves by milliseconds (ADR-085): its offset is kept in milliseconds.
ALTER TABLE merchant_state RENAME COLUMN clock_offset_seconds TO clock_offset_ms;
UPDATE merchant_state SET clock_offset_ms = clock_offset_ms * 1000;
