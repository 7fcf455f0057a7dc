-- A log line carries its place in its attempt's stream (0, 1, ...), and that place is unique: a
-- worker whose batch of lines committed but whose connection dropped before the answer came
-- writes the batch again, and append_logs skips what is already stored (ON CONFLICT DO NOTHING).
-- Found by the fault suite (a connection cut at that moment stored a line twice). Lines written
-- before this migration, or by a process older than it, have no place and are never skipped.
-- The index also serves count_logs (an adopter's "how far did the output get").
ALTER TABLE skiplock_job_events ADD COLUMN line bigint;

CREATE UNIQUE INDEX skiplock_job_events_log_lines ON skiplock_job_events (job_id, attempt, stream, line)
    WHERE type = 'log';
