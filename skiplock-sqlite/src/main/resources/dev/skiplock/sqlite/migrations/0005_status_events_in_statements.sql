-- PostgreSQL's 0005 moves status events from PL/pgSQL row triggers into its statements. SQLite's
-- triggers run inside the engine with no interpreter call per row and keep every target of issue
-- #3, so they stay. One rule changes on both: every accepted progress update is a progress event,
-- as JobContext.progress promises, even when it repeats the previous value.
DROP TRIGGER skiplock_jobs_progress_changed;

CREATE TRIGGER skiplock_jobs_progress_changed AFTER UPDATE OF progress ON skiplock_jobs
WHEN NEW.status IS OLD.status
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, data)
    VALUES (NEW.id, NEW.attempt, 'progress', NEW.progress);
END;
