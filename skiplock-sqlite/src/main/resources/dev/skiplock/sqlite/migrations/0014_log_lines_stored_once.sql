-- A log line carries its place in its attempt's stream (0, 1, ...), and that place is unique: a
-- batch of lines written again after a failure that left its outcome unknown stores each line
-- once (append_logs: ON CONFLICT DO NOTHING). Lines written before this migration have no place
-- and are never skipped. The index also serves count_logs.
ALTER TABLE skiplock_job_events ADD COLUMN line INTEGER;

CREATE UNIQUE INDEX skiplock_job_events_log_lines ON skiplock_job_events (job_id, attempt, stream, line)
    WHERE type = 'log';
