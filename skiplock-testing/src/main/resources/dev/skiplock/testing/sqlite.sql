-- The statements skiplock-testing runs itself, on SQLite (times: epoch milliseconds); postgres.sql
-- has the same names. Each reads or moves only what its comment says. :queues is a JSON array.

-- name: database_now
SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now

-- name: make_available
-- runNow: a queued job that is not yet available becomes available now (and is claimed at once).
UPDATE skiplock_jobs SET available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE id = :id AND status = 'queued' AND available_at > CAST(unixepoch('subsec') * 1000 AS INTEGER)

-- name: available_others
-- runNow: the other jobs of :queue the claim would take now, held back while the job runs alone.
SELECT id FROM skiplock_jobs
WHERE queue = :queue AND status = 'queued' AND id <> :id
  AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)

-- name: hold_jobs
-- runNow: those jobs become available in 1000 years (hold_jobs and release_jobs_held add and subtract the same).
UPDATE skiplock_jobs SET available_at = available_at + 31556952000000
WHERE id IN (SELECT value FROM json_each(:ids))

-- name: release_jobs_held
UPDATE skiplock_jobs SET available_at = available_at - 31556952000000
WHERE id IN (SELECT value FROM json_each(:ids))

-- name: make_due
-- runDue: queued jobs of :queues available by :test_now (the test's clock) become available now.
UPDATE skiplock_jobs SET available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE status = 'queued' AND queue IN (SELECT value FROM json_each(:queues))
  AND available_at > CAST(unixepoch('subsec') * 1000 AS INTEGER) AND available_at <= :test_now

-- name: end_due_waits
-- runDue: durable waits (sleeps, signal timeouts) of those jobs that end by :test_now end now, so
-- the replay finds them over (it compares wake_at with the database's now).
UPDATE skiplock_job_steps SET wake_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE wake_at > CAST(unixepoch('subsec') * 1000 AS INTEGER) AND wake_at <= :test_now
  AND job_id IN (SELECT id FROM skiplock_jobs
                 WHERE status = 'queued' AND queue IN (SELECT value FROM json_each(:queues)))

-- name: busy_jobs
-- drain: it is over when no job of :queues runs and none is available (a paused queue's jobs are
-- not: the worker claims none of them). The running and the queued jobs are counted from their
-- partial indexes, apart: as one test on the queue, SQLite read every job of the queue, finished
-- ones too, by skiplock_jobs_by_queue (migration 0024), at each poll.
SELECT (SELECT count(*) FROM skiplock_jobs INDEXED BY skiplock_jobs_running
        WHERE status = 'running' AND queue IN (SELECT value FROM json_each(:queues)))
     + (SELECT count(*) FROM skiplock_jobs INDEXED BY skiplock_jobs_claimable
        WHERE status = 'queued' AND queue IN (SELECT value FROM json_each(:queues))
          AND queue NOT IN (SELECT queue FROM skiplock_queues WHERE paused)
          AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER))

-- name: started_since
-- drain: the jobs claimed since :since (started_at is set at each claim, kept when requeued).
SELECT id, tenant FROM skiplock_jobs
WHERE queue IN (SELECT value FROM json_each(:queues)) AND started_at >= :since
ORDER BY started_at, id

-- name: shift_and_hold_rescheduled
-- runDue: a job claimed since :since and queued again (retry backoff, snooze, durable wait) was
-- given now + delay by the database; + :shift_ms counts that delay from the test's clock instead,
-- and the job is held 1000 years ahead while the call runs (as hold_jobs): with the test's clock
-- behind the database's, its time would lie in the database's past, and the worker claim it at once.
UPDATE skiplock_jobs SET available_at = available_at + :shift_ms + 31556952000000
WHERE status = 'queued' AND queue IN (SELECT value FROM json_each(:queues))
  AND started_at >= :since AND available_at > CAST(unixepoch('subsec') * 1000 AS INTEGER)
RETURNING id, queue

-- name: hold_rescheduled_not_due
-- runDue, before its worker starts: of the jobs :ids that an earlier call rescheduled, those of
-- :queues still queued and not due by :test_now are held 1000 years ahead again; one still held (an
-- earlier call's release failed: more than 500 years ahead) is held as it is.
UPDATE skiplock_jobs SET available_at = CASE
        WHEN available_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) + 15778476000000
        THEN available_at + 31556952000000 ELSE available_at END
WHERE id IN (SELECT value FROM json_each(:ids))
  AND status = 'queued' AND queue IN (SELECT value FROM json_each(:queues))
  AND available_at > :test_now
RETURNING id, queue

-- name: jobs_present
-- runDue: which of the jobs :ids this database holds (the ids of rescheduled jobs it may forget).
SELECT id FROM skiplock_jobs WHERE id IN (SELECT value FROM json_each(:ids))

-- name: release_held_due
-- runDue: of the held jobs :ids, those due by :test_now come back to their time (make_due follows).
UPDATE skiplock_jobs SET available_at = available_at - 31556952000000
WHERE id IN (SELECT value FROM json_each(:ids))
  AND available_at - 31556952000000 <= :test_now
RETURNING id, queue

-- name: shift_new_waits
-- runDue: likewise the waits those executions recorded (wake_at = now + duration).
UPDATE skiplock_job_steps SET wake_at = wake_at + :shift_ms
WHERE created_at >= :since AND wake_at > CAST(unixepoch('subsec') * 1000 AS INTEGER)
  AND job_id IN (SELECT id FROM skiplock_jobs
                 WHERE status = 'queued' AND queue IN (SELECT value FROM json_each(:queues)))

-- name: jobs_seen_here
-- assertEnqueued(connection, …): the jobs of :kind this connection sees: committed ones and those of
-- its open transaction (the one place skiplock-testing reads skiplock_jobs). SQLite has one writer,
-- so the transaction's own are those a second connection does not see yet (TestSql compares).
SELECT id, tenant, queue, kind, args, metadata, priority, status, attempt, max_attempts, available_at, unique_key
FROM skiplock_jobs
WHERE kind = :kind
ORDER BY id
