-- How many of a job's attempts ended in a snooze or a durable wait: not counted toward the retry
-- backoff (see PostgreSQL's 0032).
ALTER TABLE skiplock_jobs ADD COLUMN snoozes INTEGER NOT NULL DEFAULT 0;
