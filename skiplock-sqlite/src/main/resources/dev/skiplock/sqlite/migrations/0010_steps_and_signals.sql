-- Durable workflows (DESIGN §5, steps): a job's checkpoints and the signals sent to it.
--
-- A checkpoint is a finished step (kind 'step', its output as JSON) or a durable wait (kind
-- 'sleep' or 'signal', with wake_at: when the wait ends, epoch milliseconds). One namespace per
-- job: a name is a step, a sleep or a signal wait, never two of them. Rows are written only by the
-- execution that holds the job's lease (fenced on lease_token), so a stale worker can record nothing.
CREATE TABLE skiplock_job_steps (
    job_id     TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('step', 'sleep', 'signal')),
    output     TEXT,
    wake_at    INTEGER,
    created_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
    PRIMARY KEY (job_id, name)
) WITHOUT ROWID;

-- A signal is delivered once (the first delivery wins) and kept until its job is deleted, so one
-- sent before the job waits for it is consumed when it does.
CREATE TABLE skiplock_job_signals (
    job_id  TEXT    NOT NULL,
    name    TEXT    NOT NULL,
    payload TEXT    NOT NULL,
    sent_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
    PRIMARY KEY (job_id, name)
) WITHOUT ROWID;

-- Deleting a job (rm, retention) deletes its checkpoints and signals with its events.
DROP TRIGGER skiplock_job_deleted;

CREATE TRIGGER skiplock_job_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_steps WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_signals WHERE job_id = OLD.id;
END;
