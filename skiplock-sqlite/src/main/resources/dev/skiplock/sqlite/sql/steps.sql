-- name: list_steps
-- One job's checkpoints, read when an execution first asks for one. A wait has wait_ms left until
-- its wake_at by the database's clock, the clock that made the job available again (0 or less: over).
SELECT name, kind, output, wake_at - CAST(unixepoch('subsec') * 1000 AS INTEGER) AS wait_ms
FROM skiplock_job_steps
WHERE job_id = :job_id
ORDER BY created_at, name

-- name: record_step
-- A finished step (its output) or the start of a durable wait (wake_at = now + :wait_ms), fenced
-- on the lease token like every write of a running job: a stale execution records nothing. A
-- checkpoint of that name already there (this write sent again after its commit answer was lost) is kept.
-- Returns the output as stored, which the first execution returns as later ones read it.
INSERT INTO skiplock_job_steps (job_id, name, kind, output, wake_at)
SELECT j.id, :name, :kind, :output, CAST(unixepoch('subsec') * 1000 AS INTEGER) + :wait_ms
FROM skiplock_jobs AS j
WHERE j.id = :job_id AND j.lease_token = :token AND j.status = 'running'
ON CONFLICT (job_id, name) DO NOTHING
RETURNING output

-- name: lease_held
-- Whether the execution holding :token still runs the job: read in record_step's transaction when
-- it wrote nothing, to tell a checkpoint of that name already there (kept) from a lost lease.
SELECT 1 FROM skiplock_jobs WHERE id = :job_id AND lease_token = :token AND status = 'running'

-- name: append_step_event
-- A step event (started, succeeded, failed, waiting) of the execution holding the lease.
INSERT INTO skiplock_job_events (job_id, attempt, type, step, status, message)
SELECT j.id, j.attempt, 'step', :name, :step_status, :message
FROM skiplock_jobs AS j
WHERE j.id = :job_id AND j.lease_token = :token AND j.status = 'running'
RETURNING job_id

-- name: list_parent_results
-- The results of the jobs one job depends on (those not deleted since), for its handler.
SELECT p.id, p.result
FROM skiplock_job_dependencies AS d
JOIN skiplock_jobs AS p ON p.id = d.depends_on
WHERE d.job_id = :job_id
ORDER BY p.id
