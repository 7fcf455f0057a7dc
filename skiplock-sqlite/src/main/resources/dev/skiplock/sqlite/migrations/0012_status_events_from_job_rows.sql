-- PostgreSQL's 0012 reads the hot path's status events (enqueued, started, succeeded) from the job
-- row instead of writing them as rows. SQLite's triggers write those rows inside the engine, in
-- the same write transaction as the change and with no interpreter call per row, so every event
-- stays a row here. The view gives both databases the same name for "every event of a job".
CREATE VIEW skiplock_job_event_log AS
SELECT seq, ts, job_id, attempt, type, status, step, stream, message, data FROM skiplock_job_events;
