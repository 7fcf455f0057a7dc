-- Deleting a job (rm, retention) deletes its own dependency rows too: they were left behind, and
-- skiplock_job_dependencies grew without bound (the long fault run counted 600 per run). Only the
-- rows where the deleted job is the dependent go: a row naming a deleted dependency stays until
-- its dependent is deleted, so a dependent still waiting is never left without its dependencies.
CREATE OR REPLACE FUNCTION skiplock_job_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
    RETURN NULL;
END
$$;
