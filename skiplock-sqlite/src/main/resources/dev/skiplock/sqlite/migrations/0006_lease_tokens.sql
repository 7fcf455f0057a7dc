-- Fencing by a token that is never reused (see PostgreSQL's 0006): lease_token is the current
-- holder's (set by claim and adoption, cleared by the reaper and at release; complete_jobs keeps it,
-- since every statement that accepts a token also requires status = 'running'),
-- claim_token identifies the execution (kept through adoptions), host is where a command's run lives.
ALTER TABLE skiplock_jobs ADD COLUMN lease_token TEXT;
ALTER TABLE skiplock_jobs ADD COLUMN claim_token TEXT;
ALTER TABLE skiplock_jobs ADD COLUMN host TEXT;

-- settle_waiting_jobs reads only waiting jobs. SQLite's dependency triggers need no change: its
-- single write lock already serializes two dependencies finishing at once.
CREATE INDEX skiplock_jobs_waiting ON skiplock_jobs (id) WHERE status = 'waiting';
