-- The W3C trace context current when the job was enqueued (JobRequest.traceparent), returned with
-- the job so its attempts can join the enqueuer's trace. NULL for jobs enqueued without one.
-- (SQLite's 0009 also renames its triggers to the names used here; PostgreSQL's are unchanged.)
ALTER TABLE skiplock_jobs ADD COLUMN traceparent text;
