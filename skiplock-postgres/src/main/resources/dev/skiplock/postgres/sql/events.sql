-- name: list_events
-- One job's events after :after_seq, oldest first (rows and those read from the job row: migration
-- 0012); the join keeps other tenants' jobs invisible.
SELECT e.seq, e.ts, e.job_id, e.attempt, e.type, e.status, e.step, e.stream, e.message, e.data
FROM skiplock_job_event_log AS e
JOIN skiplock_jobs AS j ON j.id = e.job_id
WHERE j.tenant = :tenant AND e.job_id = :job_id AND e.seq > :after_seq
ORDER BY e.seq
LIMIT :limit

-- name: append_logs
-- Log lines of running executions, many per statement; followers of those jobs are notified. A
-- line is written only while its execution still holds the job's lease (its token): a line of an
-- execution that was reaped, adopted by another worker, or already finalized (a handler logging
-- after its cancel) is dropped, so no line lands after the terminal status, and after adoption
-- only the adopter writes (it re-reads the execution's output from what was recorded). The rows
-- are locked FOR KEY SHARE first (in id order, like every statement of a worker): adopt_orphans skips
-- (SKIP LOCKED) a row while lines of its old execution are being written and takes it at a later
-- round, so the adopter's count_logs always sees every line written under the old token. KEY SHARE
-- (not SHARE): it holds off the completion, the reaper and adoption (FOR UPDATE) but not the
-- heartbeat (FOR NO KEY UPDATE), which would otherwise skip a job that logs all the time. So every
-- statement that ends, takes over or clears a running job's lease must lock its rows FOR UPDATE
-- explicitly: a plain UPDATE takes FOR NO KEY UPDATE, which does not wait for these writes. A line
-- carries its place in its attempt's stream: one already stored (its batch committed, the answer
-- was lost with the connection, and the worker writes the batch again) is skipped (migration 0014).
-- Each job's event turn is taken before its row is locked, and so before a line draws its seq (see
-- update_progress).
WITH lines AS (
    SELECT l.job_id, l.token, l.attempt, l.stream, l.line, l.message, l.n
    FROM ROWS FROM (jsonb_to_recordset(CAST(:lines AS jsonb))
                    AS (job_id uuid, token uuid, attempt integer, stream text, line bigint, message text))
         WITH ORDINALITY AS l(job_id, token, attempt, stream, line, message, n)
), turns AS MATERIALIZED (
    -- each job's turn, in id order (two batches take theirs in one order), before its row is locked
    SELECT jobs.id FROM (SELECT DISTINCT job_id AS id FROM lines ORDER BY job_id OFFSET 0) AS jobs
    CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(skiplock_event_turn_key(jobs.id))) AS turn
), held AS (
    SELECT j.id, j.lease_token FROM skiplock_jobs AS j
    WHERE j.id IN (SELECT id FROM turns)
    ORDER BY j.id
    FOR KEY SHARE
), appended AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, stream, message, line)
    SELECT lines.job_id, lines.attempt, 'log', lines.stream, lines.message, lines.line
    FROM lines JOIN held ON held.id = lines.job_id AND held.lease_token = lines.token
    ORDER BY lines.n -- the join may reorder rows; seq must follow the order the lines were written
    ON CONFLICT DO NOTHING
    RETURNING job_id
)
SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || jobs.job_id)) AS notified
FROM (SELECT DISTINCT job_id FROM appended) AS jobs

-- name: count_logs
-- How far one attempt's stream got: where an adopter resumes the output and numbers its lines on.
-- That is the place after the last recorded line, which is the count of lines unless one is
-- missing (a line the completer could not store at all): numbering on from the count would give
-- the adopter's first line the place of one already stored, and it would be skipped as a repeat.
-- Lines of a process older than migration 0014 have no place: then it is their count.
SELECT GREATEST(count(*), COALESCE(max(line) + 1, 0)) FROM skiplock_job_events
WHERE job_id = :job_id AND attempt = :attempt AND type = 'log' AND stream = :stream

-- name: update_progress
-- Fenced like every write of a running job; each accepted update is also a progress event.
-- A running job's events are written from two threads (log lines by the completer; progress and
-- step events by the handler), and their row locks (KEY SHARE, NO KEY UPDATE) let them run at once.
-- A seq is drawn when its row is inserted, not when it commits: a progress event committed while a
-- log line with a lower seq was still uncommitted would be read first, and a follower reading on
-- after it would never see the line. So each of those writers takes the job's event turn (a
-- transaction-level advisory lock on skiplock_event_turn_key, migration 0029) before it locks the row, and so before a seq is drawn. Before the row lock: a handler completing
-- its job in its own transaction holds the turn (its lines) when its complete_jobs asks for FOR
-- UPDATE, so a writer waiting for the turn must hold no lock of the row (measured: a deadlock). The
-- statements that lock the row FOR UPDATE (a completion, a signal's delivery) take no turn: they
-- wait for those writers through the row.
WITH turn AS MATERIALIZED (
    SELECT pg_advisory_xact_lock(skiplock_event_turn_key(CAST(:id AS uuid)))
), updated AS (
    UPDATE skiplock_jobs SET progress = CAST(:progress AS jsonb)
    FROM turn
    WHERE id = :id AND lease_token = :token AND status = 'running'
    RETURNING id, attempt, progress
)
INSERT INTO skiplock_job_events (job_id, attempt, type, data)
SELECT updated.id, updated.attempt, 'progress', updated.progress FROM updated
