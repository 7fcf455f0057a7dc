-- The key of a job's event turn (the transaction-level advisory lock every writer of a running
-- job's events takes before it locks the job's row: update_progress in sql/events.sql says why), in
-- one place: a statement that computed it otherwise would take a turn nobody else waits for. The
-- id's first 8 bytes as a bigint: ids with one key are contiguous in uuid order, so statements that
-- take several turns in id order take them in one order.
CREATE FUNCTION skiplock_event_turn_key(job_id uuid) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CAST('x' || translate(left(CAST(job_id AS text), 18), '-', '') AS bit(64))::bigint $$;
