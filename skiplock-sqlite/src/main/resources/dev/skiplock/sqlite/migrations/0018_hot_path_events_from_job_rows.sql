-- The hot path's status events, a claim's started and a success's succeeded, are read from the job
-- row instead of written as rows, as PostgreSQL has done since its 0012 (issue #12: since 0017 those
-- two event rows and their index entries were the largest write a no-op job made beside its own
-- row; with this migration `skiplock bench drain --n 20000` ran 1.14 times as fast, median of 15
-- interleaved pairs). The statement that makes such an event gives it the events' AUTOINCREMENT
-- counter plus the job's place in the statement, and the store then moves the counter past them
-- (hot_path.sql, pass_event_seqs), so seq stays one global order across rows and derived events:
--   started_seq   its latest attempt started running (that attempt, at started_at);
--   finished_seq  that attempt succeeded (at finished_at, no message).
-- A job holds started_seq only while it runs or once it has ended, finished_seq only while it is
-- succeeded: a statement that sends it back to queued or waiting (a retry or snooze outcome, a
-- release, an unclaim, a retry) clears them, and skiplock_job_events_kept writes those events as
-- rows with their seqs first. So every event is either derived or a row, never both and never
-- neither, and a claim never finds an event to keep. The enqueue's queued event stays a row here.
-- Processes older than this migration must be stopped before it runs (README "Upgrading"): their
-- retries, snoozes, releases and unclaims would not clear the seqs, so the next claim or success
-- would overwrite an event no row holds.
ALTER TABLE skiplock_jobs ADD COLUMN started_seq INTEGER;

ALTER TABLE skiplock_jobs ADD COLUMN finished_seq INTEGER;

-- pass_event_seqs moves the counter's row, which SQLite writes at a table's first AUTOINCREMENT insert.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'skiplock_job_events', COALESCE((SELECT max(seq) FROM skiplock_job_events), 0)
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'skiplock_job_events');

-- Every event of every job, as the API lists it: the rows and the events derived from job rows.
-- A condition on job_id reaches every part (the job's events index and the jobs' primary key).
DROP VIEW skiplock_job_event_log;

CREATE VIEW skiplock_job_event_log AS
SELECT seq, ts, job_id, attempt, type, status, step, stream, message, data FROM skiplock_job_events
UNION ALL
SELECT started_seq, started_at, id, attempt, 'status', 'running', NULL, NULL, NULL, NULL
FROM skiplock_jobs WHERE started_seq IS NOT NULL
UNION ALL
SELECT finished_seq, finished_at, id, attempt, 'status', 'succeeded', NULL, NULL, NULL, NULL
FROM skiplock_jobs WHERE finished_seq IS NOT NULL;

-- Fires for the statements outside the hot path (they name bookkept_by_trigger, migration 0017), the
-- only ones that clear a seq: the event read from the row until now becomes a row, with its seq.
CREATE TRIGGER skiplock_job_events_kept AFTER UPDATE OF bookkept_by_trigger ON skiplock_jobs
WHEN (OLD.started_seq IS NOT NULL AND NEW.started_seq IS NULL)
  OR (OLD.finished_seq IS NOT NULL AND NEW.finished_seq IS NULL)
BEGIN
    INSERT INTO skiplock_job_events (seq, job_id, ts, attempt, type, status)
    SELECT OLD.started_seq, OLD.id, OLD.started_at, OLD.attempt, 'status', 'running'
    WHERE OLD.started_seq IS NOT NULL AND NEW.started_seq IS NULL;
    INSERT INTO skiplock_job_events (seq, job_id, ts, attempt, type, status)
    SELECT OLD.finished_seq, OLD.id, OLD.finished_at, OLD.attempt, 'status', 'succeeded'
    WHERE OLD.finished_seq IS NOT NULL AND NEW.finished_seq IS NULL;
END;
