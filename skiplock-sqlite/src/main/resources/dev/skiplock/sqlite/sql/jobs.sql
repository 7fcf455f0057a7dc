-- Every "now" below is CAST(unixepoch('subsec') * 1000 AS INTEGER): the database clock in
-- milliseconds, the same value throughout one statement.

-- name: insert_jobs
-- One statement for any number of jobs: the batch arrives as one JSON array. A live job with the
-- same unique key wins (DO NOTHING); the caller then reads it with find_live_by_unique_key.
-- "WHERE true" is SQLite's required disambiguation between SELECT and ON CONFLICT.
-- One key per request column of JobColumns (times as epoch milliseconds; available_at null: now).
INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, traceparent, priority, status, max_attempts,
                           available_at, requested_at, finished_at, timeout_seconds, unique_key, depends_on,
                           last_error)
SELECT value ->> '$.id', value ->> '$.tenant', value ->> '$.queue', value ->> '$.kind',
       value -> '$.args', value -> '$.metadata', value ->> '$.traceparent', value ->> '$.priority',
       value ->> '$.status', value ->> '$.max_attempts',
       COALESCE(value ->> '$.available_at', CAST(unixepoch('subsec') * 1000 AS INTEGER)),
       CAST(unixepoch('subsec') * 1000 AS INTEGER),
       CASE WHEN value ->> '$.status' = 'failed' THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
       value ->> '$.timeout_seconds', value ->> '$.unique_key', value -> '$.depends_on', value ->> '$.last_error'
FROM json_each(:jobs)
WHERE true
ON CONFLICT (tenant, unique_key) WHERE unique_key IS NOT NULL AND status IN ('waiting', 'queued', 'running')
DO NOTHING
-- Only what the client cannot know: it builds each Job from its own request plus these times.
RETURNING id, available_at, requested_at

-- name: insert_queued_job
-- One plain queued job (no unique key, no dependency: JobInserter.isPlain), its columns bound as
-- parameters: insert_jobs without the JSON array to build and read. It takes every request column
-- of JobColumns (JobInserter checks at start), in the forms of insert_jobs' JSON: times as epoch
-- milliseconds, available_at null: now.
-- Its event and counts come from the triggers, as for insert_jobs.
INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, traceparent, priority, status, max_attempts,
                           available_at, requested_at, timeout_seconds, unique_key, depends_on, last_error)
VALUES (:id, :tenant, :queue, :kind, :args, :metadata, :traceparent, :priority, :status, :max_attempts,
        COALESCE(:available_at, CAST(unixepoch('subsec') * 1000 AS INTEGER)),
        CAST(unixepoch('subsec') * 1000 AS INTEGER), :timeout_seconds, :unique_key, :depends_on, :last_error)
RETURNING id, available_at, requested_at

-- name: find_live_by_unique_key
SELECT * FROM skiplock_jobs
WHERE tenant = :tenant AND unique_key = :unique_key AND status IN ('waiting', 'queued', 'running')

-- name: get_job
SELECT * FROM skiplock_jobs WHERE tenant = :tenant AND id = :id

-- name: list_newest_jobs
-- A page of the job list from the newest 10 x :limit jobs below the cursor (at most 1,000, at
-- least :limit), whatever their status: the primary key's index read backwards. When :limit of
-- them match, they are the page, and the store does not run list_jobs (a page of 50 from 300,000
-- jobs: 0.07-0.09 ms, where list_jobs took 0.37-0.40). A page they do not fill pays for the rows
-- it read (0.2 ms more for 500, 0.4 for 1,000 whole rows), hence the bound. The subquery's LIMIT
-- keeps the other terms out of it (SQLite neither flattens it nor pushes them down), so the read
-- stays the key's.
SELECT * FROM (SELECT * FROM skiplock_jobs
               WHERE id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
               ORDER BY id DESC
               LIMIT max(:limit, min(10 * :limit, 1000))) AS newest
WHERE tenant = :tenant
  AND (:status IS NULL OR status = :status)
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
ORDER BY id DESC
LIMIT :limit

-- name: list_jobs
-- Newest first; the cursor is the last id of the previous page. Filters that are NULL match all.
-- The store runs it when list_newest_jobs, the newest jobs below the cursor, did not fill the
-- page.
-- The cursor is always a bound (no cursor: above every UUIDv7 text) so the plan is a range search
-- on the id index, as in list_jobs_all_tenants. A status few jobs are in is read from its own
-- index rather than by a walk of the whole history: failed, timed_out and cancelled from
-- skiplock_jobs_unsuccessful (migration 0020; the literal IN makes the partial index usable
-- whatever :status is bound to), waiting from skiplock_jobs_waiting (in id order), running from
-- skiplock_jobs_running (named: SQLite would walk the ids; the running jobs, as many as the
-- workers' slots, are then sorted). Queued jobs, when the queue (or every queue) holds at most
-- 10,000, are read from skiplock_jobs_claimable (all of them, from the index alone: the queue
-- filter bounds its first column; then their rows in id order, where tenant and kind are tested);
-- a larger backlog is walked, where its jobs, the newest ids mostly, are met early. The walk found
-- fewer queued jobs than a page only after the whole history (20 queued among 300,000 finished:
-- 55 ms a page, under 1 ms by the index); 100,000 queued: 0.5 ms a page by the walk, about 2 ms
-- with the count of the first 10,001 index entries read first. Past 10,000 queued jobs a page
-- whose cursor is past the oldest of them, or whose tenant or kind none of them has, still walks
-- the tenant's history. The last parts serve every other filter: with a queue and a kind named,
-- up to 10,000 of the tenant's jobs of the kind by their ids from skiplock_jobs_by_kind alone, then
-- their rows in id order, where the queue is tested (a rare kind within a large queue read the
-- queue's jobs: 28 ms a page, docs/PERFORMANCE.md); else a queue's jobs from
-- skiplock_jobs_by_queue, a kind's from skiplock_jobs_by_kind (migration 0024: a rare queue or kind
-- walked every tenant's history), else the tenant's jobs from skiplock_jobs_by_tenant (migration
-- 0025: a tenant with few jobs among another's many walked them all), the other filters tested row
-- by row. They read nothing when the queued jobs, or the kind's, were read by their index (their
-- bound on the ids is then '': a guard on the count was tested at each row of the walk, 16 ms of
-- the 300,000). The kind's part tests the queue as "+queue": SQLite read the whole queue by
-- skiplock_jobs_by_queue, every tenant's, and sorted it. Each part's guard on the parameters alone
-- is tested once, so a part that does not apply reads nothing; the merge in id order stops at the
-- limit. The failed and waiting parts test the tenant as
-- "+tenant": SQLite read the tenant's jobs by skiplock_jobs_by_tenant instead (the running part
-- names its index).
WITH queued AS (
    SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_claimable
    WHERE :status IS 'queued' AND status = 'queued'
      AND queue BETWEEN COALESCE(:queue, '') AND COALESCE(:queue, char(1114111))
    LIMIT 10001),
of_kind AS (
    SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_by_kind
    WHERE :queue IS NOT NULL
      AND (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
      AND kind = CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN NULL ELSE :kind END
      AND tenant = :tenant
    LIMIT 10001)
SELECT * FROM skiplock_jobs
WHERE :status IN ('failed', 'timed_out', 'cancelled') AND status IN ('failed', 'timed_out', 'cancelled')
  AND status = :status
  AND +tenant = :tenant
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
UNION ALL
SELECT * FROM skiplock_jobs
WHERE :status = 'waiting' AND status = 'waiting'
  AND +tenant = :tenant
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
UNION ALL
SELECT * FROM skiplock_jobs INDEXED BY skiplock_jobs_running
WHERE :status = 'running' AND status = 'running'
  AND tenant = :tenant
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
UNION ALL
SELECT * FROM skiplock_jobs
WHERE id IN (SELECT id FROM queued
             WHERE (SELECT count(*) FROM queued) <= 10000
               AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
  AND tenant = :tenant
  AND (:kind IS NULL OR kind = :kind)
UNION ALL
SELECT * FROM skiplock_jobs
WHERE id IN (SELECT id FROM of_kind
             WHERE NOT (:status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000)
               AND (SELECT count(*) FROM of_kind) <= 10000
               AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
  AND (:status IS NULL OR status = :status)
  AND +queue = :queue
UNION ALL
SELECT * FROM skiplock_jobs INDEXED BY skiplock_jobs_by_queue
WHERE :queue IS NOT NULL
  AND (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
  AND (:status IS NULL OR status = :status)
  AND queue = :queue
  AND tenant = :tenant
  AND (:kind IS NULL OR kind = :kind)
  AND id < CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN ''
                WHEN :kind IS NOT NULL AND (SELECT count(*) FROM of_kind) <= 10000 THEN ''
                ELSE COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff') END
UNION ALL
SELECT * FROM skiplock_jobs INDEXED BY skiplock_jobs_by_kind
WHERE :queue IS NULL AND :kind IS NOT NULL
  AND (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
  AND (:status IS NULL OR status = :status)
  AND kind = :kind
  AND tenant = :tenant
  AND id < CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN ''
                ELSE COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff') END
UNION ALL
SELECT * FROM skiplock_jobs INDEXED BY skiplock_jobs_by_tenant
WHERE :queue IS NULL AND :kind IS NULL
  AND (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
  AND (:status IS NULL OR status = :status)
  AND tenant = :tenant
  AND id < CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN ''
                ELSE COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff') END
ORDER BY id DESC
LIMIT :limit

-- name: get_job_tenant
-- The tenant owning a job, whoever asks: the only read that does not filter on :tenant, so an
-- admin's view (Skiplock.tenantOf) can then act through that tenant's client. Primary key lookup.
SELECT tenant FROM skiplock_jobs WHERE id = :id

-- name: list_newest_jobs_all_tenants
-- list_newest_jobs across every tenant (an admin's view: Skiplock.listAllTenants), the store's first
-- read for list_jobs_all_tenants.
SELECT * FROM (SELECT * FROM skiplock_jobs
               WHERE id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
               ORDER BY id DESC
               LIMIT max(:limit, min(10 * :limit, 1000))) AS newest
WHERE (:status IS NULL OR status = :status)
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
ORDER BY id DESC
LIMIT :limit

-- name: list_jobs_all_tenants
-- list_jobs across every tenant (an admin's view: Skiplock.listAllTenants). A statement of its own
-- rather than an optional :tenant in list_jobs, so a tenant-facing call can never drop its tenant.
-- The store runs it when list_newest_jobs_all_tenants did not fill the page.
-- Newest first from the cursor walks the primary key's index backwards and stops after :limit
-- matches. The cursor is a bound that is always there (no cursor: above every UUIDv7 text), so
-- the plan is a range search (SEARCH ... USING INDEX sqlite_autoindex_skiplock_jobs_1 (id<?));
-- written "(:cursor IS NULL OR id < :cursor)" it was a SCAN filtering every newer row (200,000
-- jobs, a page in the middle: 12 ms, against 0.1 ms). A status few jobs are in is read from its own
-- index, as in list_jobs. A queue, or a kind when no queue is named, with at most 10,000 jobs is
-- read from skiplock_jobs_by_queue or skiplock_jobs_by_kind (migration 0024; all its ids from the
-- index alone, then their rows in id order, where the other filters are tested), as list_jobs
-- reads up to 10,000 queued jobs: those indexes hold each tenant's jobs in id order, not every
-- tenant's, and the walk found a rare queue's or kind's jobs only after the whole history (20 of
-- 300,000 jobs: 57 ms a page, docs/PERFORMANCE.md). Past 10,000, a queue or a kind alone (no other
-- filter) is read tenant by tenant: the tenants found one probe each past the last (tenants, which
-- stops at the 101st), each one's newest :limit ids from the same index alone (the range down to
-- its :limit-th newest, found by one more read of the index: reading each id through the key took
-- 61 ms for 100 tenants at a page of 500), then the newest :limit of those and their rows (a walk
-- found 20,000 jobs of a queue behind 300,000 newer ones of others only after all of them: 56 ms a
-- page, 3 ms). That reads up to 100 x :limit ids whatever the queue's share of the newest jobs, where
-- a walk reads about :limit / that share: a queue of 40 % of 300,000 jobs over 100 tenants, a page
-- of 500 the newest 1,000 jobs did not fill, 6.9 ms where the walk took 2.3. With another filter, or more than 100 such
-- tenants, the ids are walked, where the matches are met early unless the newer jobs are others'
-- (tenant by tenant, a kind one in five jobs of a queue read each tenant's jobs of the queue to find
-- its own: 60 tenants, 10 ms a page where the walk took 3). The walk reads nothing when an index read
-- served (its bound is then ''). The queue's or kind's ids are not read when the queued
-- jobs' index serves (their key is then NULL: as a term of the CTE's WHERE, that guard was tested
-- at every entry, 4.5-5.6 ms; without it, 10,001 entries were read for nothing, 2 ms).
WITH RECURSIVE queued AS (
    SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_claimable
    WHERE :status IS 'queued' AND status = 'queued'
      AND queue BETWEEN COALESCE(:queue, '') AND COALESCE(:queue, char(1114111))
    LIMIT 10001),
named AS (
    SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_by_queue
    WHERE :queue IS NOT NULL
      AND (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
      AND queue = CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN NULL ELSE :queue END
    UNION ALL
    SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_by_kind
    WHERE :queue IS NULL
      AND (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
      AND kind = CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN NULL ELSE :kind END
    LIMIT 10001),
tenants (tenant, found) AS (
    SELECT CASE WHEN :queue IS NOT NULL
                THEN (SELECT tenant FROM skiplock_jobs INDEXED BY skiplock_jobs_by_queue
                      WHERE queue = :queue ORDER BY tenant LIMIT 1)
                ELSE (SELECT tenant FROM skiplock_jobs INDEXED BY skiplock_jobs_by_kind
                      WHERE kind = :kind ORDER BY tenant LIMIT 1) END, 1
    WHERE :status IS NULL AND (:queue IS NULL) <> (:kind IS NULL)
      AND (SELECT count(*) FROM named) > 10000
    UNION ALL
    SELECT CASE WHEN :queue IS NOT NULL
                THEN (SELECT tenant FROM skiplock_jobs INDEXED BY skiplock_jobs_by_queue
                      WHERE queue = :queue AND tenant > tenants.tenant ORDER BY tenant LIMIT 1)
                ELSE (SELECT tenant FROM skiplock_jobs INDEXED BY skiplock_jobs_by_kind
                      WHERE kind = :kind AND tenant > tenants.tenant ORDER BY tenant LIMIT 1) END,
           tenants.found + 1
    FROM tenants WHERE tenants.tenant IS NOT NULL AND tenants.found <= 100)
SELECT * FROM skiplock_jobs
WHERE :status IN ('failed', 'timed_out', 'cancelled') AND status IN ('failed', 'timed_out', 'cancelled')
  AND status = :status
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
UNION ALL
SELECT * FROM skiplock_jobs
WHERE :status = 'waiting' AND status = 'waiting'
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
UNION ALL
SELECT * FROM skiplock_jobs INDEXED BY skiplock_jobs_running
WHERE :status = 'running' AND status = 'running'
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
UNION ALL
SELECT * FROM skiplock_jobs
WHERE id IN (SELECT id FROM queued
             WHERE (SELECT count(*) FROM queued) <= 10000
               AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
  AND (:kind IS NULL OR kind = :kind)
UNION ALL
SELECT * FROM skiplock_jobs
WHERE id IN (SELECT id FROM named
             WHERE NOT (:status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000)
               AND (SELECT count(*) FROM named) <= 10000
               AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
  AND (:status IS NULL OR status = :status)
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
UNION ALL
SELECT * FROM skiplock_jobs
WHERE (:status IS NULL OR :status NOT IN ('failed', 'timed_out', 'cancelled', 'waiting', 'running'))
  AND (:status IS NULL OR status = :status)
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND id < CASE WHEN :status IS 'queued' AND (SELECT count(*) FROM queued) <= 10000 THEN ''
                WHEN (:queue IS NOT NULL OR :kind IS NOT NULL) AND (SELECT count(*) FROM named) <= 10000 THEN ''
                WHEN EXISTS (SELECT 1 FROM tenants WHERE tenant IS NULL) THEN ''
                ELSE COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff') END
UNION ALL
SELECT * FROM skiplock_jobs
WHERE id IN (SELECT newest.id FROM tenants JOIN skiplock_jobs AS newest INDEXED BY skiplock_jobs_by_queue
                 ON newest.queue = :queue AND newest.tenant = tenants.tenant
                AND newest.id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                AND newest.id >= COALESCE((SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_by_queue
                                           WHERE queue = :queue AND tenant = tenants.tenant
                                             AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                                           ORDER BY id DESC
                                           LIMIT 1 OFFSET :limit - 1), '')
             WHERE :queue IS NOT NULL AND tenants.tenant IS NOT NULL
               AND EXISTS (SELECT 1 FROM tenants WHERE tenant IS NULL)
             UNION ALL
             SELECT newest.id FROM tenants JOIN skiplock_jobs AS newest INDEXED BY skiplock_jobs_by_kind
                 ON newest.kind = :kind AND newest.tenant = tenants.tenant
                AND newest.id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                AND newest.id >= COALESCE((SELECT id FROM skiplock_jobs INDEXED BY skiplock_jobs_by_kind
                                           WHERE kind = :kind AND tenant = tenants.tenant
                                             AND id < COALESCE(:cursor, 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                                           ORDER BY id DESC
                                           LIMIT 1 OFFSET :limit - 1), '')
             WHERE :queue IS NULL AND tenants.tenant IS NOT NULL
               AND EXISTS (SELECT 1 FROM tenants WHERE tenant IS NULL)
             ORDER BY 1 DESC
             LIMIT :limit)
ORDER BY id DESC
LIMIT :limit

-- name: claim_jobs
-- Runs in the claim's transaction, under SQLite's single write lock: concurrent claimers (any
-- process) queue on busy_timeout and never take the same row. The subquery reads
-- skiplock_jobs_claimable one priority at a time: levels holds the priorities present, highest
-- first, each found by one probe below the last, with the due jobs counted in the priorities above
-- it (up to :limit each); it stops once they fill the claim, and a paused queue has none. In each
-- priority it takes its first :limit due jobs (the range up to now), then the first :limit of those
-- in claim order (fewer than twice :limit rows to sort). One walk in claim order read every delayed
-- job of a priority to reach the next priority's due jobs or to find none (500,000 jobs delayed by
-- a day, nothing due: 42-46 ms a claim, under the write lock; now 0.1-0.3 ms). Where no priority
-- has due jobs the claim probes every priority present (the 2,001 JobRequest allows, 250 delayed
-- jobs each: 11-25 ms, 45-83 ms before). The attempt is counted at claim. :token is a fresh random
-- token the worker draws for this statement: the fence of every later write of this execution
-- (migration 0006), and its identity (claim_token) through adoptions. The claim floor
-- (:floor_priority, :floor_at, ...) is not used: SQLite removes a claimed job's index entry in the
-- claim itself, so a read from the start of a priority meets no job claimed before (see the
-- PostgreSQL statement). It fires no status trigger (migration 0017): the store writes the claimed
-- jobs' counts in the claim's transaction (hot_path.sql). Each job's started event is read from its
-- row (migration 0018): started_seq, the events' counter plus the job's place in claim order (the
-- store then moves the counter past them, pass_event_seqs). It returns what that bookkeeping reads,
-- not the rows: the store reads them by read_claimed_jobs once the claim has committed, so the
-- write lock is not held for reading and mapping every column of each job (a drain's claims held
-- it 1.26-1.30 s for 50,000 jobs when they returned the rows, 0.96-0.98 s since).
UPDATE skiplock_jobs
SET status = 'running', attempt = attempt + 1, locked_by = :worker,
    locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + :lease_ms,
    started_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
    started_seq = (SELECT seq FROM sqlite_sequence WHERE name = 'skiplock_job_events') + claimable.place,
    lease_token = :token, claim_token = :token,
    -- A resumable kind's execution (a command's process) lives on this host: adoption heeds it.
    host = CASE WHEN kind IN (SELECT value FROM json_each(:resumable_kinds)) THEN :host END
FROM (SELECT id, row_number() OVER (ORDER BY priority DESC, available_at, id) AS place
      FROM (WITH RECURSIVE levels (level, due_above) AS (
                SELECT max(priority), 0 FROM skiplock_jobs WHERE status = 'queued' AND queue = :queue
                  AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = :queue AND q.paused)
                UNION ALL
                SELECT (SELECT max(priority) FROM skiplock_jobs
                        WHERE status = 'queued' AND queue = :queue AND priority < levels.level),
                       levels.due_above + (SELECT count(*) FROM (SELECT 1 FROM skiplock_jobs
                                           WHERE status = 'queued' AND queue = :queue AND priority = levels.level
                                             AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)
                                           LIMIT :limit))
                FROM levels WHERE levels.level IS NOT NULL AND levels.due_above < :limit)
            SELECT due.id, due.priority, due.available_at FROM levels, skiplock_jobs AS due
            WHERE levels.level IS NOT NULL AND levels.due_above < :limit
              AND due.id IN (SELECT id FROM skiplock_jobs
                             WHERE status = 'queued' AND queue = :queue AND priority = levels.level
                               AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)
                             ORDER BY available_at, id
                             LIMIT :limit)
            ORDER BY due.priority DESC, due.available_at, due.id
            LIMIT :limit)) AS claimable
WHERE skiplock_jobs.id = claimable.id
RETURNING id, tenant, queue

-- name: read_claimed_jobs
-- The rows of the jobs claim_jobs claimed under :token (:ids, a JSON array of their ids), read
-- after the claim committed, on the claim's connection, outside the write lock, in claim order (as
-- claim_jobs orders them: change both together). A job whose lease is no longer the claim's is not
-- read, so its claimer does not run it: a reaper cleared the lease (the claimer stalled for the
-- lease's length, 30 s by default, since the claim), and an adopter may hold it already.
SELECT * FROM skiplock_jobs
WHERE id IN (SELECT value FROM json_each(:ids)) AND status = 'running' AND lease_token = :token
ORDER BY priority DESC, available_at, id

-- name: first_claimable
-- The first claimable job of one priority in claim order (the claimer's look-behind; see the
-- PostgreSQL statement of the same name).
SELECT available_at, id FROM skiplock_jobs
WHERE status = 'queued' AND queue = :queue AND priority = :priority
  AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)
ORDER BY available_at, id
LIMIT 1

-- name: adopt_orphans
-- Takes over running jobs whose lease the reaper cleared under a new token; the attempt is not
-- changed. A job whose execution lives on one host is adopted only by a worker of that host while
-- a worker of that host serving this queue is alive (see the PostgreSQL statement of the same name). elapsed_ms: how long the attempt
-- has run, by the database clock.
UPDATE skiplock_jobs
SET locked_by = :worker, locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + :lease_ms,
    lease_token = :token
WHERE id IN (
    SELECT o.id FROM skiplock_jobs AS o
    WHERE o.status = 'running' AND o.queue = :queue AND o.locked_until IS NULL
      AND (o.host IS NULL OR o.host = :host
           OR NOT EXISTS (SELECT 1 FROM skiplock_workers AS w
                          WHERE w.host = o.host AND w.stopped_at IS NULL
                            AND w.last_heartbeat_at > CAST(unixepoch('subsec') * 1000 AS INTEGER)
                                                      - coalesce(w.lease_ms, :host_stale_ms)
                            AND EXISTS (SELECT 1 FROM json_each(w.queues) WHERE value = o.queue)))
    ORDER BY o.priority DESC, o.id
    LIMIT :limit)
RETURNING *, CAST(unixepoch('subsec') * 1000 AS INTEGER) - started_at AS elapsed_ms

-- name: heartbeat
-- One statement per worker per interval. A held job missing from the answer has lost its lease.
UPDATE skiplock_jobs
SET locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + :lease_ms
FROM (SELECT value ->> '$.id' AS id, value ->> '$.token' AS token FROM json_each(:held)) AS h
WHERE skiplock_jobs.id = h.id AND skiplock_jobs.lease_token = h.token AND skiplock_jobs.status = 'running'
RETURNING id, attempt, lease_token AS token, cancel_requested, 1 AS extended

-- name: complete_jobs
-- Fenced finalize of many jobs in one statement: written only while the job's lease token is the
-- one the outcome carries. A retry of a job whose cancel was requested becomes cancelled instead.
-- For every outcome but a plain success (those take complete_successes of hot_path.sql; the store
-- sorts them out), and for a handler's outcome in its own transaction: it names
-- bookkept_by_trigger, so the status triggers write its events, counts and dependents' release. A
-- job queued again (retry, snooze) clears started_seq: the attempt's started event becomes a row
-- (migration 0018, skiplock_job_events_kept) before the next claim sets it anew.
UPDATE skiplock_jobs
SET status = CASE WHEN c.status = 'queued' AND skiplock_jobs.cancel_requested THEN 'cancelled'
                  ELSE c.status END,
    max_attempts = skiplock_jobs.max_attempts + c.extra_attempts,
    snoozes = skiplock_jobs.snoozes + c.extra_attempts, -- not failures: the backoff leaves them out (0032)
    available_at = CASE WHEN c.status = 'queued'
                        THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) + c.delay_ms
                        ELSE skiplock_jobs.available_at END,
    finished_at = CASE WHEN c.status = 'queued' AND NOT skiplock_jobs.cancel_requested THEN NULL
                       ELSE CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    result = c.result,
    last_error = COALESCE(c.error, skiplock_jobs.last_error),
    locked_by = NULL,
    locked_until = NULL,
    started_seq = CASE WHEN c.status = 'queued' AND NOT skiplock_jobs.cancel_requested THEN NULL
                       ELSE skiplock_jobs.started_seq END,
    bookkept_by_trigger = 1
FROM (SELECT value ->> '$.id' AS id, value ->> '$.token' AS token, value ->> '$.status' AS status,
             value ->> '$.delay_ms' AS delay_ms, NULLIF(value -> '$.result', 'null') AS result,
             value ->> '$.error' AS error, value ->> '$.extra_attempts' AS extra_attempts
      FROM json_each(:completions)) AS c
WHERE skiplock_jobs.id = c.id AND skiplock_jobs.lease_token = c.token AND skiplock_jobs.status = 'running'
-- The token stays on the row (RETURNING cannot read the batch): every statement that accepts a
-- token also requires status = 'running', which this statement just ended.
RETURNING id, attempt, lease_token AS token

-- name: release_jobs
-- Graceful shutdown gives back jobs still running at the deadline; attempt stays counted. The
-- attempt's started event becomes a row (migration 0018: only a running or ended job reads it from its row).
UPDATE skiplock_jobs
SET status = CASE WHEN skiplock_jobs.cancel_requested THEN 'cancelled' ELSE 'queued' END,
    finished_at = CASE WHEN skiplock_jobs.cancel_requested
                       THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) ELSE NULL END,
    available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
    max_attempts = MAX(skiplock_jobs.max_attempts, skiplock_jobs.attempt + 1),
    last_error = CASE WHEN skiplock_jobs.cancel_requested THEN skiplock_jobs.last_error
                      ELSE 'released at worker shutdown during attempt ' || skiplock_jobs.attempt END,
    locked_by = NULL,
    locked_until = NULL,
    lease_token = NULL,
    started_seq = NULL,
    bookkept_by_trigger = 1
FROM (SELECT value ->> '$.id' AS id, value ->> '$.token' AS token FROM json_each(:held)) AS h
WHERE skiplock_jobs.id = h.id AND skiplock_jobs.lease_token = h.token AND skiplock_jobs.status = 'running'
RETURNING id

-- name: unclaim_jobs
-- Gives back, without using their attempt, the jobs of a claim whose answer never reached the
-- worker: it does not run them. A job whose cancel was requested meanwhile ends cancelled, as at
-- release. Matches nothing when the claim did not commit. Idempotent. The claim's started event
-- stays (its attempt is given back, but it happened): it becomes a row (migration 0018).
UPDATE skiplock_jobs
SET status = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END,
    finished_at = CASE WHEN cancel_requested THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    attempt = attempt - 1, locked_by = NULL, locked_until = NULL,
    lease_token = NULL, claim_token = NULL, host = NULL, started_seq = NULL, bookkept_by_trigger = 1
WHERE queue = :queue AND status = 'running' AND lease_token = :token AND claim_token = :token -- skiplock_jobs_running
RETURNING id

-- name: completed_by_lease
-- Whether the outcome :status of the lease :token for attempt :attempt is what the job's row holds:
-- written by that lease (the completion leaves lease_token on the row) with that status (a retry's
-- queued, or the cancelled a requested cancel makes of it). The completer asks it of an outcome its
-- write did not apply, after an earlier write of the same batch lost its answer: that write may
-- have committed, and the outcome is then this worker's, not a stale one. (An adopter's outcome was
-- written under another lease token; a later claim gives the row another.)
SELECT 1 FROM skiplock_jobs
WHERE id = :id AND attempt = :attempt AND lease_token = :token AND status <> 'running'
  AND (status = :status OR (:status = 'queued' AND status = 'cancelled'))

-- name: execution_running
-- Whether the job still runs the execution a worker lost the lease of: if not, nobody will ever
-- adopt that execution, and its worker stops it (a command's process) instead of leaving it.
SELECT 1 FROM skiplock_jobs WHERE id = :id AND status = 'running' AND claim_token = :execution_id

-- name: reap_expired_leases
-- Clears the lease (and its token: the stale holder can no longer write) of running jobs whose
-- owner stopped heartbeating, every one (one writer: no other statement waits on its rows, so it
-- takes no :limit); keeps status and attempt. Returns the queues of the orphans.
UPDATE skiplock_jobs
SET locked_by = NULL, locked_until = NULL, lease_token = NULL
WHERE status = 'running' AND locked_until < CAST(unixepoch('subsec') * 1000 AS INTEGER)
RETURNING queue

-- name: cancel_job
-- Waiting or queued: cancelled at once. Running: only flagged; the owner writes the final status.
UPDATE skiplock_jobs
SET status = CASE WHEN status = 'running' THEN status ELSE 'cancelled' END,
    finished_at = CASE WHEN status = 'running' THEN finished_at
                       ELSE CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    cancel_requested = CASE WHEN status = 'running' THEN 1 ELSE cancel_requested END,
    bookkept_by_trigger = 1
WHERE tenant = :tenant AND id = :id AND status IN ('waiting', 'queued', 'running')
RETURNING *

-- name: retry_job
-- One more attempt for a terminal job; attempt keeps counting, max_attempts grows if used up. A
-- job whose dependencies have not all succeeded waits for them again; one with a failed, timed
-- out, cancelled or deleted dependency is not retried (the caller names it: failed_dependency;
-- a dependency deleted after it ended keeps its outcome, migration 0030).
-- The events read from the row until now, the last attempt's start and success, become rows (migration 0018).
UPDATE skiplock_jobs
SET status = CASE WHEN EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                               WHERE d.job_id = skiplock_jobs.id AND d.status <> 'succeeded')
                  THEN 'waiting' ELSE 'queued' END,
    available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER), finished_at = NULL,
    cancel_requested = 0, result = NULL, max_attempts = MAX(max_attempts, attempt + 1),
    started_seq = NULL, finished_seq = NULL, bookkept_by_trigger = 1
WHERE tenant = :tenant AND id = :id AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
  AND NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                  WHERE d.job_id = skiplock_jobs.id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted'))
RETURNING *

-- name: failed_dependency
-- The first dependency of a job that failed, timed out, was cancelled or deleted: why retry_job
-- refused.
SELECT d.depends_on AS id, d.status FROM skiplock_dependency_states AS d
WHERE d.job_id = :id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted')
ORDER BY d.depends_on
LIMIT 1

-- name: prune_finished
-- Retention: deletes up to :limit jobs finished longer than :age_ms ago, walking the primary key
-- from the oldest id (UUIDv7: enqueue order), where finished jobs gather, and no further than
-- :enqueued_before (JobStore.pruneFinished: ids enqueued before the cutoff, since a job finishes
-- after it is enqueued; every job id must be a UUIDv7 of its enqueue, or this never reaches it).
-- Without that bound a run that found fewer than :limit jobs walked the whole history under the
-- write lock (0.3 s a million jobs, docs/PERFORMANCE.md). Bounded batches keep each write lock
-- short; the single statement under SQLite's write lock sees no concurrent retry. A batch is
-- bounded by its events too (each job's delete trigger deletes them, under the same lock): it takes
-- the jobs, in id order, until the events of those before one reach :max_events (the first always
-- goes). Counted by jobs alone, a first batch of 1,000 jobs of 5,000 log lines each held the write
-- lock past the busy timeout, and every enqueue, claim and heartbeat meanwhile failed. A run's
-- batches each start past the last id the one before deleted (:after; Retention), so a run walks
-- the jobs still there below a batch once, not once a batch (JobStore.pruneFinished).
DELETE FROM skiplock_jobs
WHERE id IN (
    SELECT id FROM (
        SELECT id, coalesce(sum(1 + (SELECT count(*) FROM skiplock_job_events e WHERE e.job_id = candidate.id))
            OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM (
            SELECT id FROM skiplock_jobs
            WHERE id > :after AND id < :enqueued_before
              AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
              AND finished_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms
            ORDER BY id
            LIMIT :limit) AS candidate)
    WHERE before < :max_events)
RETURNING id

-- name: count_jobs
-- Jobs per queue and status of one tenant (GET /queues, the dashboard): its rows of
-- skiplock_job_counts (migration 0011, kept by triggers and the store) by the key, never a count
-- over the jobs themselves. Written with an optional tenant, SQLite read every tenant's rows (10,000
-- tenants of 3 queues: 15 ms against 0.2).
SELECT queue, status, sum(jobs) AS jobs FROM skiplock_job_counts
WHERE tenant = :tenant
GROUP BY queue, status
HAVING sum(jobs) <> 0

-- name: count_jobs_all_tenants
-- count_jobs over every tenant (an admin's view, the depth gauges, benchmarks' final check). Every
-- row is read, but only those with jobs are sorted into their queue and status: most of a tenant's
-- rows are zero (the statuses a job passes through), and the sort was most of the time (10,000
-- tenants of 3 queues and 7 statuses, two of them with jobs: 80 ms, 22 ms without the zeros).
SELECT queue, status, sum(jobs) AS jobs FROM skiplock_job_counts
WHERE jobs <> 0
GROUP BY queue, status
HAVING sum(jobs) <> 0

-- name: compact_job_counts
-- Nothing to fold: the triggers keep one row per group up to date, and a group's rows at zero stay
-- (a status change updates two existing rows). A statement that changes nothing.
DELETE FROM skiplock_job_counts WHERE 0

-- name: compact_job_throughput
-- Drops minutes over an hour old (the triggers keep one row per tenant, queue and minute), found
-- by skiplock_job_throughput_minute (migration 0021; before it, every row was read, under the
-- write lock). Nothing to fold, so the fold's window (fold_ms) is PostgreSQL's alone.
DELETE FROM skiplock_job_throughput WHERE minute < unixepoch() / 60 - 60

-- name: queue_activity
-- Per queue of one tenant (all with a null tenant): jobs finished in each of the last 15 minutes
-- (minutes_ago 0 = this minute), from skiplock_job_throughput. One tenant's rows are read by the
-- key (tenant first: an hour of its minutes at most); every tenant's by a scan (+minute keeps
-- SQLite off skiplock_job_throughput_minute, migration 0021, the fold's: by it each row of the 15
-- minutes would be a lookup in the table; 1,001 tenants of 3 queues, 183,183 rows: 27-29 ms against
-- 15 for the scan, which the grouping of the 45,045 rows of those minutes mostly is). Each part's
-- guard on :tenant alone is tested once, so the part that does not apply reads nothing.
SELECT queue, unixepoch() / 60 - minute AS minutes_ago, sum(finished) AS finished
FROM (SELECT queue, minute, finished FROM skiplock_job_throughput
      WHERE :tenant IS NOT NULL AND tenant = :tenant AND minute > unixepoch() / 60 - 15
      UNION ALL
      SELECT queue, minute, finished FROM skiplock_job_throughput
      WHERE :tenant IS NULL AND +minute > unixepoch() / 60 - 15)
GROUP BY queue, minute

-- name: oldest_queued
-- Per queue of one tenant (all with a null tenant): when its longest-waiting available job became
-- available. Reads every queued job, delayed ones included: the cheaper read while queues hold few
-- jobs each, or other tenants' jobs lie among the tenant's; else the store reads
-- oldest_queued_by_priority.
SELECT queue, min(available_at) AS oldest FROM skiplock_jobs
WHERE status = 'queued' AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)
  AND (:tenant IS NULL OR tenant = :tenant)
GROUP BY queue

-- name: oldest_queued_by_priority
-- oldest_queued, for queues of many jobs, all of the tenant's (OldestQueuedRead
-- chooses), reading a few entries of skiplock_jobs_claimable per queue and priority (see the
-- PostgreSQL statement). 500,000 jobs delayed by a day: 60-67 ms a call with oldest_queued (a scan
-- of the index), under 1 ms with this.
WITH RECURSIVE queues (queue) AS (
    SELECT min(queue) FROM skiplock_jobs WHERE status = 'queued'
    UNION ALL
    SELECT (SELECT min(queue) FROM skiplock_jobs WHERE status = 'queued' AND queue > queues.queue)
    FROM queues WHERE queues.queue IS NOT NULL
), levels (queue, level) AS (
    SELECT queue, (SELECT max(priority) FROM skiplock_jobs AS j
                   WHERE j.status = 'queued' AND j.queue = queues.queue)
    FROM queues WHERE queues.queue IS NOT NULL
    UNION ALL
    SELECT queue, (SELECT max(priority) FROM skiplock_jobs AS j
                   WHERE j.status = 'queued' AND j.queue = levels.queue AND j.priority < levels.level)
    FROM levels WHERE levels.level IS NOT NULL
), firsts (queue, available_at) AS MATERIALIZED (
    SELECT queue, (SELECT available_at FROM skiplock_jobs AS j
                   WHERE j.status = 'queued' AND j.queue = levels.queue AND j.priority = levels.level
                     AND j.available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)
                     AND (:tenant IS NULL OR j.tenant = :tenant)
                   ORDER BY j.available_at
                   LIMIT 1)
    FROM levels WHERE levels.level IS NOT NULL
)
SELECT queue, min(available_at) AS oldest FROM firsts
GROUP BY queue
HAVING min(available_at) IS NOT NULL

-- name: delete_job
-- Deletes a terminal job; its events go with it (trigger).
DELETE FROM skiplock_jobs
WHERE tenant = :tenant AND id = :id AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')

-- name: read_dependencies
-- The dependencies of jobs being enqueued. The library's own enqueue transaction (BEGIN
-- IMMEDIATE) holds SQLite's write lock, so no dependency finishes before the dependency rows are
-- written. On a caller's deferred transaction one may finish after this read, but then the insert
-- that follows fails ("database is locked": in WAL mode a read transaction older than the last
-- commit cannot become a write one), so no job waits on a finish it did not see.
-- find_settleable_jobs and settle_waiting_jobs stay as the backstop PostgreSQL needs.
SELECT id, status FROM skiplock_jobs
WHERE tenant = :tenant AND id IN (SELECT value FROM json_each(:ids))

-- name: insert_dependencies
INSERT INTO skiplock_job_dependencies (job_id, depends_on, outcome)
SELECT value ->> '$.job_id', value ->> '$.depends_on', value ->> '$.outcome' FROM json_each(:edges)

-- name: take_maintenance_turn
-- The reaper's turn at :task (see the PostgreSQL statement of the same name): its row returned when
-- :worker took it last, or no process took it within the last :interval_ms, or its time lies more
-- than that ahead; else no row.
INSERT INTO skiplock_maintenance_turns (task, taken_at, taken_by)
VALUES (:task, CAST(unixepoch('subsec') * 1000 AS INTEGER), :worker)
ON CONFLICT (task) DO UPDATE SET taken_at = excluded.taken_at, taken_by = excluded.taken_by
WHERE skiplock_maintenance_turns.taken_by = excluded.taken_by
   OR skiplock_maintenance_turns.taken_at <= excluded.taken_at - :interval_ms
   OR skiplock_maintenance_turns.taken_at > excluded.taken_at + :interval_ms
RETURNING task

-- name: give_back_maintenance_turn
-- A turn whose work failed is free again at once, unless another process took it since.
UPDATE skiplock_maintenance_turns SET taken_at = 0
WHERE task = :task AND taken_by = :worker

-- name: find_settleable_jobs
-- The backstop of dependency release, run by the reaper whose turn it is (see the PostgreSQL
-- statement of the same name): the waiting jobs (up to 1,000, by id) whose dependencies all
-- succeeded, or one of which failed, timed out, was cancelled or deleted (its row gone before the
-- dependent's enqueue committed: skiplock_dependency_states, migration 0030). Walks skiplock_jobs_waiting and
-- reads every waiting job's dependencies, mostly to find nothing: a read, run outside a
-- transaction, so that writers go on meanwhile (as one statement with the update it held the write
-- lock throughout: 95 ms at 100,000 waiting jobs, at every search). From the id :after on.
SELECT w.id FROM skiplock_jobs AS w
WHERE w.status = 'waiting' AND w.id > :after
  AND ((SELECT 1 FROM skiplock_dependency_states AS d
        WHERE d.job_id = w.id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted')
        LIMIT 1) IS NOT NULL
       OR NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                      WHERE d.job_id = w.id AND d.status <> 'succeeded'))
ORDER BY w.id
LIMIT 1000

-- name: settle_waiting_jobs
-- Settles the jobs find_settleable_jobs found (:ids, a JSON array), each read again with its
-- dependencies under the write lock: one cancelled or settled since is left as it is, one whose
-- dependency was retried since waits for it again; one whose dependency reads 'deleted' fails
-- naming it. The status trigger writes the events.
UPDATE skiplock_jobs
SET status = CASE WHEN w.failed_dependency IS NOT NULL THEN 'failed' ELSE 'queued' END,
    finished_at = CASE WHEN w.failed_dependency IS NOT NULL THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    available_at = CASE WHEN w.failed_dependency IS NOT NULL THEN skiplock_jobs.available_at
                        ELSE max(skiplock_jobs.available_at, CAST(unixepoch('subsec') * 1000 AS INTEGER)) END,
    last_error = CASE WHEN w.failed_dependency IS NOT NULL THEN 'dependency ' || w.failed_dependency
                      ELSE skiplock_jobs.last_error END,
    bookkept_by_trigger = 1
FROM (SELECT candidate.id, candidate.failed_dependency
      FROM (SELECT waiting.id,
                   (SELECT d.depends_on || ' ' || d.status FROM skiplock_dependency_states AS d
                    WHERE d.job_id = waiting.id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted')
                    ORDER BY d.depends_on LIMIT 1) AS failed_dependency,
                   NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                               WHERE d.job_id = waiting.id AND d.status <> 'succeeded') AS ready
            FROM skiplock_jobs AS waiting
            WHERE waiting.id IN (SELECT value FROM json_each(:ids)) AND waiting.status = 'waiting') AS candidate
      WHERE candidate.failed_dependency IS NOT NULL OR candidate.ready) AS w
WHERE skiplock_jobs.id = w.id
RETURNING id, queue, status
