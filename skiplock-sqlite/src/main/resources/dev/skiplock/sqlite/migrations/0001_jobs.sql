-- Jobs, one row each for their whole life. Statuses and timestamps: DESIGN §1.
-- Times are INTEGER Unix milliseconds from the database clock (unixepoch('subsec')).
CREATE TABLE skiplock_jobs (
    id               TEXT    PRIMARY KEY,
    tenant           TEXT    NOT NULL,
    queue            TEXT    NOT NULL,
    kind             TEXT    NOT NULL,
    args             TEXT    NOT NULL,
    metadata         TEXT    NOT NULL,
    priority         INTEGER NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN
                         ('waiting', 'queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled')),
    attempt          INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER NOT NULL,
    available_at     INTEGER NOT NULL,
    requested_at     INTEGER NOT NULL,
    started_at       INTEGER,
    finished_at      INTEGER,
    timeout_seconds  INTEGER,
    unique_key       TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    result           TEXT,
    last_error       TEXT,
    locked_by        TEXT,
    locked_until     INTEGER
);

-- The claim path: only queued rows, already in claim order.
CREATE INDEX skiplock_jobs_claimable ON skiplock_jobs (queue, priority DESC, available_at, id)
    WHERE status = 'queued';

-- Reaper (expired leases) and adoption (cleared leases) read only running rows.
CREATE INDEX skiplock_jobs_running ON skiplock_jobs (queue, locked_until) WHERE status = 'running';

-- No index on tenant or finished_at: every index is written again on each status change (claim,
-- completion), so each one costs every job several index inserts. Listing walks the primary key
-- newest first (ids are UUIDv7) and retention walks it oldest first.

-- "Reuse or create": at most one live job per tenant and unique key.
CREATE UNIQUE INDEX skiplock_jobs_unique_live ON skiplock_jobs (tenant, unique_key)
    WHERE unique_key IS NOT NULL AND status IN ('waiting', 'queued', 'running');
