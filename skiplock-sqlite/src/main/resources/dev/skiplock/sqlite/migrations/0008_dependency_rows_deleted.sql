-- Deleting a job (rm, retention) deletes its own dependency rows too (see PostgreSQL's 0008): only
-- the rows where the deleted job is the dependent, so a waiting dependent keeps all of its rows.
CREATE TRIGGER skiplock_job_dependencies_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
END;
