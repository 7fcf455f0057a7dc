-- The counts (0011) were one table of deltas, a group's count the sum of its rows, folded by the
-- reaper into one row per group. The fold grouped the whole table to find the groups of several
-- rows, in every worker process every reaperInterval, and a tenant's count read every row: at
-- 10,000 tenants of 3 queues (120,000 groups) the fold took 76-92 ms with nothing to fold and a
-- tenant's count 6-7 ms (docs/PERFORMANCE.md). Now the folded sums live apart, one row per group
-- by its key, and skiplock_job_counts keeps only the deltas appended since the last fold: the fold
-- reads those alone, a tenant's count reads its folded rows by the key and the few deltas. The
-- statements and triggers that append deltas are unchanged, so an enqueue writes what it did. A
-- group's folded row stays at zero (updated in place when the group has jobs again), as SQLite's
-- do: a queue or tenant gone for good keeps its rows.
-- Processes older than this version go on writing and folding right (their fold sums deltas
-- within skiplock_job_counts, which the new reads add up as well), but what they read of the counts
-- is the deltas alone (README, the upgrade notes). A fold of an older process may run while this
-- migrates: the fold's lock keeps them apart.
SELECT pg_advisory_xact_lock(hashtext('skiplock_job_counts:' || current_schema()));

CREATE TABLE skiplock_job_counts_folded (
    tenant text   NOT NULL,
    queue  text   NOT NULL,
    status text   NOT NULL,
    jobs   bigint NOT NULL,
    PRIMARY KEY (tenant, queue, status)
);

WITH moved AS (
    DELETE FROM skiplock_job_counts RETURNING tenant, queue, status, jobs
)
INSERT INTO skiplock_job_counts_folded (tenant, queue, status, jobs)
SELECT tenant, queue, status, sum(jobs) FROM moved GROUP BY tenant, queue, status;
