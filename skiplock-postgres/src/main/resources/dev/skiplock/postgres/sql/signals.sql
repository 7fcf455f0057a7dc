-- name: lock_signal_target
-- The job a signal is sent to, this tenant's only, locked until the signal is stored: the
-- delivery and a completion of the same job take turns.
SELECT status, attempt, queue FROM skiplock_jobs
WHERE id = :job_id AND tenant = :tenant
FOR UPDATE

-- name: insert_signal
-- The first delivery of a signal wins; a later one inserts nothing. It is sent when inserted, with
-- the job row locked (lock_signal_target), not when its transaction began: a wait's checkpoint
-- (record_step, FOR KEY SHARE) can take the row while this delivery waits for it behind another
-- share lock, and that wait, read before this commits, then ended before the signal came for
-- every execution alike (read_signal).
INSERT INTO skiplock_job_signals (job_id, name, payload, sent_at)
VALUES (:job_id, :name, CAST(:payload AS jsonb), clock_timestamp())
ON CONFLICT (job_id, name) DO NOTHING

-- name: append_signal_event
-- The delivery as a step event of the job (status 'signalled'); followers are told.
WITH appended AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, step, status)
    VALUES (:job_id, :attempt, 'step', :name, 'signalled')
    RETURNING job_id
)
SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || appended.job_id)) FROM appended

-- name: read_signal
-- The payload of a delivered signal, if any, unless it came after the job's wait for it had ended
-- (timed out): a wait replays as it ended, whatever comes later. A signal sent at the instant the
-- wait ended counts as after it: a wait of no time reads once it is written, and a signal it could
-- not see then must not count on a replay (SQLite's milliseconds can tie).
SELECT g.payload FROM skiplock_job_signals AS g
WHERE g.job_id = :job_id AND g.name = :name
  AND NOT EXISTS (SELECT 1 FROM skiplock_job_steps AS s
                  WHERE s.job_id = g.job_id AND s.name = g.name AND s.kind = 'signal' AND s.wake_at <= g.sent_at)

-- name: wake_for_signal
-- A queued job waiting for signal :name (a wait not yet over) that has been delivered runs now
-- instead of at the end of its wait. Run after a delivery, and in the transaction that writes a
-- wait for a signal (the signal may have come while the job still ran, with nothing to wake then).
-- Workers are told.
WITH woken AS (
    UPDATE skiplock_jobs AS j SET available_at = now()
    WHERE j.id = :job_id AND j.status = 'queued' AND j.available_at > now()
      AND EXISTS (SELECT 1 FROM skiplock_job_steps AS s
                  WHERE s.job_id = j.id AND s.name = :name AND s.kind = 'signal' AND s.wake_at > now())
      AND EXISTS (SELECT 1 FROM skiplock_job_signals AS g WHERE g.job_id = j.id AND g.name = :name)
    RETURNING j.queue
)
SELECT woken.queue FROM woken
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'q:' || queue)) FROM woken) AS notified
