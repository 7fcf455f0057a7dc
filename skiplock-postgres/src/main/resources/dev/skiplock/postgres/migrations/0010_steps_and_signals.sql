-- Durable workflows (DESIGN §5, steps): a job's checkpoints and the signals sent to it.
--
-- A checkpoint is a finished step (kind 'step', its output as JSON) or a durable wait (kind
-- 'sleep' or 'signal', with wake_at: when the wait ends). One namespace per job: a name is a step,
-- a sleep or a signal wait, never two of them. Rows are written only by the execution that holds
-- the job's lease (fenced on lease_token), so a stale worker can record nothing.
CREATE TABLE skiplock_job_steps (
    job_id     uuid        NOT NULL,
    name       text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('step', 'sleep', 'signal')),
    output     jsonb,
    wake_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, name)
);

-- A signal is delivered once (the first delivery wins) and kept until its job is deleted, so one
-- sent before the job waits for it is consumed when it does.
CREATE TABLE skiplock_job_signals (
    job_id  uuid        NOT NULL,
    name    text        NOT NULL,
    payload jsonb       NOT NULL,
    sent_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, name)
);

-- Deleting a job (rm, retention) deletes its checkpoints and signals with its events.
CREATE OR REPLACE FUNCTION skiplock_job_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_steps WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_signals WHERE job_id = OLD.id;
    RETURN NULL;
END
$$;
