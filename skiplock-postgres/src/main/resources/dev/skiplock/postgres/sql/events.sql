-- name: list_events
-- One job's events after :after_seq, oldest first; the join keeps other tenants' jobs invisible.
SELECT e.seq, e.ts, e.job_id, e.attempt, e.type, e.status, e.step, e.stream, e.message, e.data
FROM skiplock_job_events AS e
JOIN skiplock_jobs AS j ON j.id = e.job_id
WHERE j.tenant = :tenant AND e.job_id = :job_id AND e.seq > :after_seq
ORDER BY e.seq
LIMIT :limit

-- name: append_logs
-- Log lines of running attempts, many per statement; followers of those jobs are notified. A line
-- of an attempt that is running but not held by :worker (reaped, or adopted by another worker) is
-- dropped: the adopter re-reads the execution's output and writes those lines itself.
WITH appended AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, stream, message)
    SELECT l.job_id, l.attempt, 'log', l.stream, l.message
    FROM ROWS FROM (jsonb_to_recordset(CAST(:lines AS jsonb))
                    AS (job_id uuid, attempt integer, stream text, message text))
         WITH ORDINALITY AS l(job_id, attempt, stream, message, n)
    WHERE NOT EXISTS (SELECT 1 FROM skiplock_jobs AS j WHERE j.id = l.job_id AND j.attempt = l.attempt
                      AND j.status = 'running' AND j.locked_by IS DISTINCT FROM :worker)
    ORDER BY l.n -- the anti-join may reorder rows; seq must follow the order the lines were written
    RETURNING job_id
)
SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || jobs.job_id)) AS notified
FROM (SELECT DISTINCT job_id FROM appended) AS jobs

-- name: count_logs
-- Lines already recorded for one attempt's stream: where an adopter resumes the output.
SELECT count(*) FROM skiplock_job_events
WHERE job_id = :job_id AND attempt = :attempt AND type = 'log' AND stream = :stream

-- name: update_progress
-- Fenced like every write of a running job; each accepted update is also a progress event.
WITH updated AS (
    UPDATE skiplock_jobs SET progress = CAST(:progress AS jsonb)
    WHERE id = :id AND attempt = :attempt AND locked_by = :worker AND status = 'running'
    RETURNING id, attempt, progress
)
INSERT INTO skiplock_job_events (job_id, attempt, type, data)
SELECT updated.id, updated.attempt, 'progress', updated.progress FROM updated
