-- name: list_steps
-- One job's checkpoints, read when an execution first asks for one. A wait has wait_ms left until
-- its wake_at by the database's clock, the clock that made the job available again (0 or less: over).
SELECT name, kind, output, CAST(EXTRACT(EPOCH FROM wake_at - now()) * 1000 AS bigint) AS wait_ms
FROM skiplock_job_steps
WHERE job_id = :job_id
ORDER BY created_at, name

-- name: record_step
-- A finished step (its output) or the start of a durable wait (wake_at = now + :wait_ms), fenced
-- on the lease token like every write of a running job: a stale execution records nothing. The
-- job row is locked FOR KEY SHARE until the transaction ends, so a reaper clearing the lease (FOR
-- UPDATE) waits for the checkpoint rather than letting a reaped execution's write land after it;
-- the heartbeat (FOR NO KEY UPDATE) does not. A checkpoint of
-- that name already there (this write sent again after its commit answer was lost) is kept.
-- Returns the output as stored (jsonb orders an object's keys its own way), which the first
-- execution returns as later ones read it. It takes the job's event turn before the row lock, as
-- every writer of the job's events does: its step event follows in its transaction, and holding the
-- row while waiting for the turn deadlocked with a completion in the handler's own transaction.
INSERT INTO skiplock_job_steps (job_id, name, kind, output, wake_at)
SELECT j.id, :name, :kind, CAST(:output AS jsonb), now() + CAST(:wait_ms AS bigint) * interval '1 millisecond'
FROM skiplock_jobs AS j
CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(skiplock_event_turn_key(j.id))) AS turn
WHERE j.id = :job_id AND j.lease_token = :token AND j.status = 'running'
FOR KEY SHARE OF j
ON CONFLICT (job_id, name) DO NOTHING
RETURNING output

-- name: lease_held
-- Whether the execution holding :token still runs the job: read in record_step's transaction when
-- it wrote nothing, to tell a checkpoint of that name already there (kept) from a lost lease.
SELECT 1 FROM skiplock_jobs WHERE id = :job_id AND lease_token = :token AND status = 'running'

-- name: append_step_event
-- A step event (started, succeeded, failed, waiting) of the execution holding the lease; followers
-- are told. The row is locked FOR KEY SHARE, as append_logs does: an event is never written after the
-- terminal status of a completion that committed while this statement ran. It takes the job's event
-- turn before the row lock (the lock is applied above the join) and so before its seq is drawn (see
-- update_progress in events.sql).
WITH appended AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, step, status, message)
    SELECT j.id, j.attempt, 'step', :name, :step_status, :message
    FROM skiplock_jobs AS j
    CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(skiplock_event_turn_key(j.id))) AS turn
    WHERE j.id = :job_id AND j.lease_token = :token AND j.status = 'running'
    FOR KEY SHARE OF j
    RETURNING job_id
)
SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || appended.job_id)) FROM appended

-- name: list_parent_results
-- The results of the jobs one job depends on (those not deleted since), for its handler.
SELECT p.id, p.result
FROM skiplock_job_dependencies AS d
JOIN skiplock_jobs AS p ON p.id = d.depends_on
WHERE d.job_id = :job_id
ORDER BY p.id
