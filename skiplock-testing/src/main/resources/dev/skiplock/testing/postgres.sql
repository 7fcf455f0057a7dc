-- The statements skiplock-testing runs itself, on PostgreSQL; sqlite.sql has the same names. Each
-- reads or moves only what its comment says. :queues is a JSON array of queue names.

-- name: database_now
SELECT now() AS now

-- name: make_available
-- runNow: a queued job that is not yet available becomes available now (and is claimed at once).
UPDATE skiplock_jobs SET available_at = now()
WHERE id = :id AND status = 'queued' AND available_at > now()

-- name: available_others
-- runNow: the other jobs of :queue the claim would take now, held back while the job runs alone.
SELECT id FROM skiplock_jobs
WHERE queue = :queue AND status = 'queued' AND id <> :id AND available_at <= now()

-- name: hold_jobs
-- runNow: those jobs become available in 1000 years (hold_jobs and release_jobs_held add and subtract the same
-- interval, in hours: years and days would be calendar arithmetic, which a February 29 or a time zone's
-- clock change makes no identity).
UPDATE skiplock_jobs SET available_at = available_at + interval '8765820 hours'
WHERE CAST(id AS text) IN (SELECT jsonb_array_elements_text(CAST(:ids AS jsonb)))

-- name: release_jobs_held
UPDATE skiplock_jobs SET available_at = available_at - interval '8765820 hours'
WHERE CAST(id AS text) IN (SELECT jsonb_array_elements_text(CAST(:ids AS jsonb)))

-- name: make_due
-- runDue: queued jobs of :queues available by :test_now (the test's clock) become available now.
UPDATE skiplock_jobs SET available_at = now()
WHERE status = 'queued' AND queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb)))
  AND available_at > now() AND available_at <= :test_now

-- name: end_due_waits
-- runDue: durable waits (sleeps, signal timeouts) of those jobs that end by :test_now end now, so
-- the replay finds them over (it compares wake_at with the database's now()).
UPDATE skiplock_job_steps SET wake_at = now()
WHERE wake_at > now() AND wake_at <= :test_now
  AND job_id IN (SELECT id FROM skiplock_jobs
                 WHERE status = 'queued' AND queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))

-- name: busy_jobs
-- drain: it is over when no job of :queues runs and none is available (a paused queue's jobs are
-- not: the worker claims none of them).
SELECT count(*) FROM skiplock_jobs
WHERE queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb)))
  AND (status = 'running' OR (status = 'queued' AND available_at <= now()
                              AND queue NOT IN (SELECT queue FROM skiplock_queues WHERE paused)))

-- name: started_since
-- drain: the jobs claimed since :since (started_at is set at each claim, kept when requeued).
SELECT id, tenant FROM skiplock_jobs
WHERE queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))) AND started_at >= :since
ORDER BY started_at, id

-- name: shift_and_hold_rescheduled
-- runDue: a job claimed since :since and queued again (retry backoff, snooze, durable wait) was
-- given now() + delay by the database; + :shift_ms counts that delay from the test's clock instead,
-- and the job is held 1000 years ahead while the call runs (as hold_jobs): with the test's clock
-- behind the database's, its time would lie in the database's past, and the worker claim it at once.
UPDATE skiplock_jobs SET available_at = available_at + :shift_ms * interval '1 millisecond' + interval '8765820 hours'
WHERE status = 'queued' AND queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb)))
  AND started_at >= :since AND available_at > now()
RETURNING id, queue

-- name: hold_rescheduled_not_due
-- runDue, before its worker starts: of the jobs :ids that an earlier call rescheduled, those of
-- :queues still queued and not due by :test_now are held 1000 years ahead again; one still held (an
-- earlier call's release failed: more than 500 years ahead) is held as it is.
UPDATE skiplock_jobs SET available_at = CASE WHEN available_at < now() + interval '4382910 hours'
                                             THEN available_at + interval '8765820 hours' ELSE available_at END
WHERE CAST(id AS text) IN (SELECT jsonb_array_elements_text(CAST(:ids AS jsonb)))
  AND status = 'queued' AND queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb)))
  AND available_at > :test_now
RETURNING id, queue

-- name: jobs_present
-- runDue: which of the jobs :ids this database holds (the ids of rescheduled jobs it may forget).
SELECT id FROM skiplock_jobs WHERE CAST(id AS text) IN (SELECT jsonb_array_elements_text(CAST(:ids AS jsonb)))

-- name: release_held_due
-- runDue: of the held jobs :ids, those due by :test_now come back to their time (make_due follows).
UPDATE skiplock_jobs SET available_at = available_at - interval '8765820 hours'
WHERE CAST(id AS text) IN (SELECT jsonb_array_elements_text(CAST(:ids AS jsonb)))
  AND available_at - interval '8765820 hours' <= :test_now
RETURNING id, queue

-- name: shift_new_waits
-- runDue: likewise the waits those executions recorded (wake_at = now() + duration).
UPDATE skiplock_job_steps SET wake_at = wake_at + :shift_ms * interval '1 millisecond'
WHERE created_at >= :since AND wake_at > now()
  AND job_id IN (SELECT id FROM skiplock_jobs
                 WHERE status = 'queued' AND queue IN (SELECT jsonb_array_elements_text(CAST(:queues AS jsonb))))

-- name: jobs_of_this_transaction
-- assertEnqueued(connection, …): the jobs of :kind the connection's open transaction wrote (the one
-- place skiplock-testing reads skiplock_jobs). xmin is the writing transaction's id; rows written
-- under a savepoint carry the subtransaction's id and are not seen.
SELECT id, tenant, queue, kind, CAST(args AS text) AS args, CAST(metadata AS text) AS metadata, priority,
       status, attempt, max_attempts, available_at, unique_key
FROM skiplock_jobs
WHERE kind = :kind AND CAST(xmin AS text) = CAST(txid_current_if_assigned() % 4294967296 AS text)
ORDER BY id
