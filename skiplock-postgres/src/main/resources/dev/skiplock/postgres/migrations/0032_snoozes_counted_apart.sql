-- How many of a job's attempts ended in a snooze or a durable wait (a sleep, a signal's wait).
-- Those do not use up an attempt (max_attempts grows by one each), and now do not count toward the
-- retry backoff either: the delay after a failure is the policy's for the failures so far (attempt
-- less snoozes). It was the policy's for every attempt, so a workflow that had slept twelve times
-- waited about an hour after its first failure instead of the policy's first delay.
ALTER TABLE skiplock_jobs ADD COLUMN snoozes integer NOT NULL DEFAULT 0;
