-- Jobs, one row each for their whole life. Statuses and timestamps: DESIGN §1.
CREATE TABLE skiplock_jobs (
    id               uuid        PRIMARY KEY,
    tenant           text        NOT NULL,
    queue            text        NOT NULL,
    kind             text        NOT NULL,
    args             jsonb       NOT NULL,
    metadata         jsonb       NOT NULL,
    priority         integer     NOT NULL,
    status           text        NOT NULL CHECK (status IN
                         ('waiting', 'queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled')),
    attempt          integer     NOT NULL DEFAULT 0,
    max_attempts     integer     NOT NULL,
    available_at     timestamptz NOT NULL,
    requested_at     timestamptz NOT NULL,
    started_at       timestamptz,
    finished_at      timestamptz,
    timeout_seconds  integer,
    unique_key       text,
    cancel_requested boolean     NOT NULL DEFAULT false,
    result           jsonb,
    last_error       text,
    locked_by        text,
    locked_until     timestamptz
);

-- The claim path: only queued rows are in it, already in claim order, so a claim reads the first
-- rows of one queue and the index stays small however much history the table keeps.
CREATE INDEX skiplock_jobs_claimable ON skiplock_jobs (queue, priority DESC, available_at, id)
    WHERE status = 'queued';

-- Reaper (expired leases) and adoption (cleared leases, locked_until IS NULL) read only running rows.
CREATE INDEX skiplock_jobs_running ON skiplock_jobs (queue, locked_until) WHERE status = 'running';

-- No index on tenant or finished_at: every index is written again on each status change (claim,
-- completion), so each one costs every job several index inserts. Listing walks the primary key
-- newest first (ids are UUIDv7) and retention walks it oldest first.

-- "Reuse or create": at most one live job per tenant and unique key.
CREATE UNIQUE INDEX skiplock_jobs_unique_live ON skiplock_jobs (tenant, unique_key)
    WHERE unique_key IS NOT NULL AND status IN ('waiting', 'queued', 'running');
