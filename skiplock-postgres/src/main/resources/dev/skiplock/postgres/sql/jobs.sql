-- name: insert_jobs
-- One statement for any number of jobs: the batch arrives as one JSON array, so a batch of 1,000
-- costs one round trip. A live job with the same unique key wins (ON CONFLICT DO NOTHING); the
-- caller then reads it with find_live_by_unique_key. Each job's first status event comes from the
-- same statement: a queued job's is read from its requested_seq (migration 0012), a waiting or
-- failed job's is written as a row (as every status event not derived: see 0005). With :notify one notification
-- per queue wakes the listeners; PostgreSQL delivers it only on commit, so a rolled-back enqueue
-- wakes nobody. Without it the queue is announced after the commit (JobInserter.insertCommitted:
-- overlapping enqueues in Skiplock's own transactions, whose notifying commits would queue on one
-- lock). A job born failed (a dependency had already failed) is announced to its followers at once.
-- The statement appends the count deltas of the jobs it inserted (migration 0015; a failed one
-- also counts as finished in this minute, as a finish of the update trigger does). The array
-- holds the keyed jobs in key order (JobInserter.inKeyOrder), and the rows are inserted in array
-- order, so two of these statements taking the same keys wait for each other in one order. (Keys a
-- transaction takes over several statements can still meet in opposite orders: JobInserter.findLiveByUniqueKey.)
WITH inserted AS (
    INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, traceparent, priority, status,
                               max_attempts, available_at, requested_at, finished_at, timeout_seconds,
                               unique_key, depends_on, last_error, requested_seq)
    SELECT r.id, r.tenant, r.queue, r.kind, r.args, r.metadata, r.traceparent, r.priority, r.status,
           r.max_attempts, COALESCE(to_timestamp(r.available_at / 1000.0), now()), now(),
           CASE WHEN r.status = 'failed' THEN now() END, r.timeout_seconds, r.unique_key, r.depends_on,
           r.last_error, CASE WHEN r.status = 'queued' THEN nextval('skiplock_job_events_seq_seq') END
    -- One key per request column of JobColumns (times as epoch milliseconds; available_at null: now).
    FROM jsonb_to_recordset(CAST(:jobs AS jsonb)) AS r(id uuid, tenant text, queue text, kind text, args jsonb,
         metadata jsonb, traceparent text, priority integer, status text, max_attempts integer,
         available_at bigint, timeout_seconds integer, unique_key text, depends_on jsonb, last_error text)
    ON CONFLICT (tenant, unique_key) WHERE unique_key IS NOT NULL AND status IN ('waiting', 'queued', 'running')
    DO NOTHING
    RETURNING id, available_at, requested_at, tenant, queue, status, requested_seq
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    SELECT inserted.id, 0, 'status', inserted.status FROM inserted WHERE inserted.requested_seq IS NULL
), counted AS (
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
    SELECT tenant, queue, status, count(*) FROM inserted GROUP BY tenant, queue, status
), born_finished AS (
    INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
    SELECT tenant, queue, date_trunc('minute', now()), count(*) FROM inserted
    WHERE status = 'failed'
    GROUP BY tenant, queue
)
-- Only what the client cannot know: it builds each Job from its own request plus these times.
SELECT inserted.id, inserted.available_at, inserted.requested_at FROM inserted
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'q:' || queues.queue))
            FROM (SELECT DISTINCT queue FROM inserted) AS queues
            WHERE CAST(:notify AS boolean)) AS notified
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || failed.id))
            FROM inserted AS failed WHERE failed.status = 'failed') AS announced

-- name: insert_queued_job
-- One plain queued job (no unique key, no dependency: JobInserter.isPlain), its columns bound as
-- parameters: insert_jobs without the JSON array to build and parse, the conflict check, and the
-- parts for waiting and born-failed jobs (pgbench, one job per transaction: 0.27 against 0.32 ms).
-- It takes every request column of JobColumns (JobInserter checks at start), in the forms of
-- insert_jobs' JSON (times as epoch milliseconds, so stored to the millisecond alike). A parameter
-- that may be null or not is cast to the type its values are sent as: pgjdbc prepares a statement
-- again when a parameter's type changes between calls. As insert_jobs, it draws the job's requested
-- event seq (migration 0012), appends its count delta (0015) and, with :notify, wakes the queue's
-- listeners at commit.
WITH inserted AS (
    INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, traceparent, priority, status,
                               max_attempts, available_at, requested_at, timeout_seconds, unique_key,
                               depends_on, last_error, requested_seq)
    VALUES (CAST(:id AS uuid), :tenant, :queue, :kind, CAST(:args AS jsonb), CAST(:metadata AS jsonb),
            CAST(:traceparent AS varchar), CAST(:priority AS integer), :status, CAST(:max_attempts AS integer),
            COALESCE(to_timestamp(CAST(:available_at AS bigint) / 1000.0), now()), now(),
            CAST(:timeout_seconds AS integer), CAST(:unique_key AS varchar), CAST(:depends_on AS jsonb),
            CAST(:last_error AS varchar), nextval('skiplock_job_events_seq_seq'))
    RETURNING id, available_at, requested_at, tenant, queue, status
), counted AS (
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
    SELECT tenant, queue, status, 1 FROM inserted
)
SELECT inserted.id, inserted.available_at, inserted.requested_at FROM inserted
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'q:' || inserted.queue)) FROM inserted
            WHERE CAST(:notify AS boolean)) AS notified

-- name: find_live_by_unique_key
SELECT * FROM skiplock_jobs
WHERE tenant = :tenant AND unique_key = :unique_key AND status IN ('waiting', 'queued', 'running')

-- name: get_job
SELECT * FROM skiplock_jobs WHERE tenant = :tenant AND id = :id

-- name: list_newest_jobs
-- A page of the job list from the newest 10 x :limit jobs below the cursor (at most 1,000, at
-- least :limit), whatever their status: the primary key read backwards. When :limit of them match,
-- they are the page, and the store does not run list_jobs. Without this read first, a backlog of
-- queued jobs older or newer than a long history made every first page merge a half whose first
-- row lay past all the other's: 1 million of each, 200-374 ms a page, 0.14-0.50 ms now
-- (docs/PERFORMANCE.md). A statement of its own rather than list_jobs' first part: the server
-- plans list_jobs' halves (1.5-3 ms, more with every part) only for a page these jobs do not fill.
-- Its own plan has one shape whatever the values (the key read backwards, the filters on what it
-- gives), so it is prepared as other statements are.
SELECT * FROM (SELECT * FROM skiplock_jobs
               WHERE id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
               ORDER BY id DESC
               LIMIT GREATEST(:limit, LEAST(10 * :limit, 1000))) AS newest
WHERE tenant = :tenant
  AND (CAST(:status AS text) IS NULL OR status = :status)
  AND (CAST(:queue AS text) IS NULL OR queue = :queue)
  AND (CAST(:kind AS text) IS NULL OR kind = :kind)
ORDER BY id DESC
LIMIT :limit

-- name: list_jobs
-- Newest first; the cursor is the last id of the previous page. Filters that are NULL match all.
-- Two halves, each ordered by id and cut at :limit, then merged: the live jobs and the history,
-- whose partial indexes (migration 0011) start with the tenant and the filtered column, so a rare
-- queue, kind or status among millions of finished jobs is a short index range, not a walk of the
-- whole table (10 million finished jobs: a status nobody had took 950 ms as one query over the
-- primary key).
-- The cursor is always a bound (no cursor: above every UUIDv7) so that it stays an index condition
-- in the generic plan (200,000 jobs in 3 tenants, a page in the middle: 0.08 ms; written
-- "(:cursor IS NULL OR id < :cursor)": 18 ms, 100,099 rows filtered). Which index fits depends on
-- which filters are set: planned for each call (a cached generic plan walked the whole history).
-- The store runs it only when list_newest_jobs, the newest jobs below the cursor, did not fill
-- the page. A half a status filter cannot match is skipped by its own one-time test;
-- DISTINCT ON drops the rows two parts of the live half found (backlog_page's, read again with
-- every live job when they do not fill the page).
-- The live half does not walk the primary key: newest first by it, the planner walked the history
-- too whenever the live matches were fewer than it guessed from the whole table (a queue of 6
-- queued jobs with 300,000 finished, behind 100,000 queued of another queue: 200-350 ms a page,
-- 4-7 ms now; docs/PERFORMANCE.md). live_ids holds the ids of the live jobs of every tenant
-- (of :queue, when set; of :status, when it is a live one) read from the partial indexes of
-- waiting, queued and running jobs, the claimable one alone without the table, up to 1,001: when
-- there are at most 1,000, the page's live part is those ids newest first, each job read by its
-- key until :limit match (10,000 such reads for a tenant or kind few of them have took 16-21 ms
-- where the key's walk took 2-4). Past that (a backlog), the live jobs among the newest 10,000 below the
-- cursor (backlog_page: the key read backwards, at most 10,000 rows) and, when fewer than :limit
-- of them match, every live job the indexes give, read and sorted behind OFFSET 0 so that the key
-- cannot serve the order: as long as the backlog (a kind of 5 % of a backlog of 100,000: 4 ms a
-- page by the key as before, 68 ms reading the whole backlog, 8 ms with backlog_page). With much
-- of the table live the planner may read that by a scan of the whole table, which is then not
-- much longer than the backlog.
-- With a filter, the history half reads one of the tenant's history indexes, in the order
-- (tenant, id) that each gives once its second column is fixed and the primary key cannot give:
-- the tenant compared as "= ANY (ARRAY[...])", which the planner does not fold into a constant of
-- the sort, and ordered by it. Ordered by id alone, the planner priced the key, newest first,
-- against the index by its estimate from the whole table: given 'succeeded', most of the tenant's
-- jobs, so it walked the key through a newer backlog to the first finished job (100,000 queued:
-- 11-13 ms a page, about 2 ms by the index). The values stay visible, so the planner still picks
-- the index of the rarest (hidden, it took the common one's: a failed status and a common queue,
-- 1.7 -> 99 ms). Without a filter no history index is in id order for the tenant alone: the key.
-- plan: per call
WITH live_ids AS MATERIALIZED (
    SELECT id FROM (SELECT id FROM skiplock_jobs
                    WHERE status = 'queued' AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                      AND (CAST(:status AS text) IS NULL OR CAST(:status AS text) = 'queued')
                    UNION ALL
                    SELECT id FROM skiplock_jobs
                    WHERE status = 'running' AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                      AND (CAST(:status AS text) IS NULL OR CAST(:status AS text) = 'running')
                    UNION ALL
                    SELECT id FROM skiplock_jobs
                    WHERE status = 'waiting' AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                      AND (CAST(:status AS text) IS NULL OR CAST(:status AS text) = 'waiting')) AS live
    LIMIT 1001),
backlog_page AS MATERIALIZED (
    SELECT * FROM (SELECT * FROM skiplock_jobs
                   WHERE id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                   ORDER BY id DESC
                   LIMIT 10000) AS newest
    WHERE tenant = :tenant AND (status = 'waiting' OR status = 'queued' OR status = 'running')
      AND (CAST(:status AS text) IS NULL OR status = :status)
      AND (CAST(:queue AS text) IS NULL OR queue = :queue)
      AND (CAST(:kind AS text) IS NULL OR kind = :kind)
      AND (SELECT count(*) FROM live_ids) > 1000
    ORDER BY id DESC
    LIMIT :limit)
SELECT DISTINCT ON (id) * FROM (
(SELECT * FROM (SELECT * FROM skiplock_jobs
                WHERE tenant = :tenant AND (status = 'waiting' OR status = 'queued' OR status = 'running')
                  AND (CAST(:status AS text) IS NULL OR status = :status)
                  AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                  AND (CAST(:kind AS text) IS NULL OR kind = :kind)
                  AND id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                OFFSET 0) AS live
 WHERE (CAST(:status AS text) IS NULL OR CAST(:status AS text) IN ('waiting', 'queued', 'running'))
   AND (SELECT count(*) FROM live_ids) > 1000
   AND (SELECT count(*) FROM backlog_page) < :limit
 ORDER BY id DESC
 LIMIT :limit)
UNION ALL
SELECT * FROM backlog_page
UNION ALL
(SELECT job.* FROM (SELECT id FROM live_ids
                    WHERE id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                    ORDER BY id DESC) AS live
 CROSS JOIN LATERAL (SELECT * FROM skiplock_jobs WHERE skiplock_jobs.id = live.id OFFSET 0) AS job
 WHERE job.tenant = :tenant
   AND (CAST(:status AS text) IS NULL OR job.status = :status)
   AND (CAST(:kind AS text) IS NULL OR job.kind = :kind)
   AND (SELECT count(*) FROM live_ids) <= 1000
 ORDER BY live.id DESC
 LIMIT :limit)
UNION ALL
(SELECT * FROM skiplock_jobs
 WHERE tenant = ANY (ARRAY[CAST(:tenant AS text)]) AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
   AND (CAST(:status AS text) IS NULL
        OR CAST(:status AS text) IN ('succeeded', 'failed', 'timed_out', 'cancelled'))
   AND NOT (CAST(:status AS text) IS NULL AND CAST(:queue AS text) IS NULL AND CAST(:kind AS text) IS NULL)
   AND (CAST(:status AS text) IS NULL OR status = :status)
   AND (CAST(:queue AS text) IS NULL OR queue = :queue)
   AND (CAST(:kind AS text) IS NULL OR kind = :kind)
   AND id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
 ORDER BY tenant DESC, id DESC
 LIMIT :limit)
UNION ALL
(SELECT * FROM skiplock_jobs
 WHERE tenant = :tenant AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
   AND CAST(:status AS text) IS NULL AND CAST(:queue AS text) IS NULL AND CAST(:kind AS text) IS NULL
   AND id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
 ORDER BY id DESC
 LIMIT :limit)) AS page
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
               WHERE id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
               ORDER BY id DESC
               LIMIT GREATEST(:limit, LEAST(10 * :limit, 1000))) AS newest
WHERE (CAST(:status AS text) IS NULL OR status = :status)
  AND (CAST(:queue AS text) IS NULL OR queue = :queue)
  AND (CAST(:kind AS text) IS NULL OR kind = :kind)
ORDER BY id DESC
LIMIT :limit

-- name: list_jobs_all_tenants
-- list_jobs across every tenant (an admin's view: Skiplock.listAllTenants). A statement of its own
-- rather than an optional :tenant in list_jobs, so a tenant-facing call can never drop its tenant.
-- The same two halves, planned for each call, run when list_newest_jobs_all_tenants did not fill
-- the page, the live half by live_ids, backlog_page or behind OFFSET 0, as in list_jobs.
-- The history indexes start with the tenant, so with at most 100 tenants that have finished jobs
-- a filter on the history is read tenant by tenant: those tenants, each found by one probe of an
-- index past the last (tenants, which stops at the 101st), and each one's newest :limit matches by
-- its own index range (its ids alone, from the index: read with the rows, the planner took the
-- primary key for a few tenants of skewed sizes and walked the whole table for each small one,
-- 230-320 ms a page, 5-6 ms now), then the newest :limit of those. Read as one query, a rare
-- queue among 1 million finished jobs was a scan of the whole table or of an index (52 tenants:
-- 58 ms a page, 12 ms now; docs/PERFORMANCE.md). It costs two probes a tenant and up to :limit rows a tenant,
-- which at 20,000 tenants made every filtered page slower than the scan (125-642 ms): past 100
-- tenants, and without a filter, the history is read as one query, newest first, as before. That one
-- query's tests stand outside its LIMIT: inside, a parallel plan started its workers to test them
-- (a rare queue with the tenants' probes taken: 45-60 ms a page, 10-15 ms now).
-- plan: per call
WITH RECURSIVE live_ids AS MATERIALIZED (
    SELECT id FROM (SELECT id FROM skiplock_jobs
                    WHERE status = 'queued' AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                      AND (CAST(:status AS text) IS NULL OR CAST(:status AS text) = 'queued')
                    UNION ALL
                    SELECT id FROM skiplock_jobs
                    WHERE status = 'running' AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                      AND (CAST(:status AS text) IS NULL OR CAST(:status AS text) = 'running')
                    UNION ALL
                    SELECT id FROM skiplock_jobs
                    WHERE status = 'waiting' AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                      AND (CAST(:status AS text) IS NULL OR CAST(:status AS text) = 'waiting')) AS live
    LIMIT 1001),
backlog_page AS MATERIALIZED (
    SELECT * FROM (SELECT * FROM skiplock_jobs
                   WHERE id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                   ORDER BY id DESC
                   LIMIT 10000) AS newest
    WHERE (status = 'waiting' OR status = 'queued' OR status = 'running')
      AND (CAST(:status AS text) IS NULL OR status = :status)
      AND (CAST(:queue AS text) IS NULL OR queue = :queue)
      AND (CAST(:kind AS text) IS NULL OR kind = :kind)
      AND (SELECT count(*) FROM live_ids) > 1000
    ORDER BY id DESC
    LIMIT :limit),
tenants (tenant, found) AS (
    SELECT min(tenant), 1 FROM skiplock_jobs WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
    UNION ALL
    SELECT (SELECT min(j.tenant) FROM skiplock_jobs AS j
            WHERE j.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') AND j.tenant > tenants.tenant),
           tenants.found + 1
    FROM tenants WHERE tenants.tenant IS NOT NULL AND tenants.found <= 100)
SELECT DISTINCT ON (id) * FROM (
(SELECT * FROM (SELECT * FROM skiplock_jobs
                WHERE (status = 'waiting' OR status = 'queued' OR status = 'running')
                  AND (CAST(:status AS text) IS NULL OR status = :status)
                  AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                  AND (CAST(:kind AS text) IS NULL OR kind = :kind)
                  AND id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                OFFSET 0) AS live
 WHERE (CAST(:status AS text) IS NULL OR CAST(:status AS text) IN ('waiting', 'queued', 'running'))
   AND (SELECT count(*) FROM live_ids) > 1000
   AND (SELECT count(*) FROM backlog_page) < :limit
 ORDER BY id DESC
 LIMIT :limit)
UNION ALL
SELECT * FROM backlog_page
UNION ALL
(SELECT job.* FROM (SELECT id FROM live_ids
                    WHERE id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                    ORDER BY id DESC) AS live
 CROSS JOIN LATERAL (SELECT * FROM skiplock_jobs WHERE skiplock_jobs.id = live.id OFFSET 0) AS job
 WHERE (CAST(:status AS text) IS NULL OR job.status = :status)
   AND (CAST(:kind AS text) IS NULL OR job.kind = :kind)
   AND (SELECT count(*) FROM live_ids) <= 1000
 ORDER BY live.id DESC
 LIMIT :limit)
UNION ALL
(SELECT * FROM (SELECT * FROM skiplock_jobs
                WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
                  AND (CAST(:status AS text) IS NULL
                       OR CAST(:status AS text) IN ('succeeded', 'failed', 'timed_out', 'cancelled'))
                  AND (CAST(:status AS text) IS NULL OR status = :status)
                  AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                  AND (CAST(:kind AS text) IS NULL OR kind = :kind)
                  AND id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                ORDER BY id DESC
                LIMIT :limit) AS history
 WHERE (CAST(:status AS text) IS NULL AND CAST(:queue AS text) IS NULL AND CAST(:kind AS text) IS NULL)
    OR NOT EXISTS (SELECT 1 FROM tenants WHERE tenants.tenant IS NULL))
UNION ALL
(SELECT job.* FROM (SELECT history.id FROM tenants
                    CROSS JOIN LATERAL (
                        SELECT id FROM skiplock_jobs
                        WHERE tenant = tenants.tenant AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
                          AND (CAST(:status AS text) IS NULL OR status = :status)
                          AND (CAST(:queue AS text) IS NULL OR queue = :queue)
                          AND (CAST(:kind AS text) IS NULL OR kind = :kind)
                          AND id < COALESCE(CAST(:cursor AS uuid), 'ffffffff-ffff-ffff-ffff-ffffffffffff')
                        ORDER BY id DESC
                        LIMIT :limit) AS history
                    WHERE tenants.tenant IS NOT NULL
                      AND (CAST(:status AS text) IS NULL
                           OR CAST(:status AS text) IN ('succeeded', 'failed', 'timed_out', 'cancelled'))
                      AND NOT (CAST(:status AS text) IS NULL AND CAST(:queue AS text) IS NULL
                               AND CAST(:kind AS text) IS NULL)
                      AND EXISTS (SELECT 1 FROM tenants WHERE tenants.tenant IS NULL)
                    ORDER BY history.id DESC
                    LIMIT :limit) AS history
 CROSS JOIN LATERAL (SELECT * FROM skiplock_jobs WHERE skiplock_jobs.id = history.id OFFSET 0) AS job
 ORDER BY history.id DESC)) AS page
ORDER BY id DESC
LIMIT :limit

-- name: claim_jobs
-- Claims up to :limit jobs of one queue in claim order from the claimer's floor, under the fresh
-- :token: skiplock_claim_jobs (migrations 0016, 0019 and 0034, where the statement and why it is so
-- are written), a function so that its plan is made once per connection (again after an ANALYZE, to
-- the same shape) and does not follow the statistics; it counts its jobs itself (0034).
SELECT * FROM skiplock_claim_jobs(:queue, CAST(:floor_priority AS bigint), CAST(:floor_recent_at AS timestamptz),
                                  CAST(:floor_at AS timestamptz), CAST(:floor_id AS uuid), :limit, :worker,
                                  :lease_ms, :token, CAST(:resumable_kinds AS jsonb), :host)

-- name: first_claimable
-- The first claimable job of one priority in claim order (the claimer's look-behind: a job behind
-- the claim floor lowers it; see claim_jobs). Not locking: a job another claimer is taking right
-- now may show, and then only lowers the floor for one claim. Under a held snapshot this walks the
-- jobs claimed since, like a claim from the start; the claimer throttles it (LookBehind).
SELECT available_at, id FROM skiplock_jobs
WHERE status = 'queued' AND queue = :queue AND priority = :priority AND available_at <= now()
ORDER BY available_at, id
LIMIT 1

-- name: adopt_orphans
-- Takes over running jobs whose lease the reaper cleared (their worker is gone) under a new token,
-- so the old holder, should it come back, can no longer write. The attempt is not changed: the
-- adopter decides from the runner whether that attempt finished, still runs, or is lost, and
-- finalizes it fenced on its own token. A job whose execution lives on one host (host is set at
-- claim for resumable kinds: a command's run directory) is adopted only by a worker of that host
-- while a worker of that host serving this queue is alive (heartbeat within its own lease, the
-- worker registry, 0031; a row of an older process: within :host_stale_ms); once none is, anyone adopts it and finds no run there: the attempt counts as
-- lost. elapsed_ms: how long the attempt has run, by the database clock (its timeout counts from
-- its start).
WITH orphans AS (
    SELECT id FROM skiplock_jobs AS o
    WHERE status = 'running' AND queue = :queue AND locked_until IS NULL
      AND (o.host IS NULL OR o.host = :host
           OR NOT EXISTS (SELECT 1 FROM skiplock_workers AS w
                          WHERE w.host = o.host AND w.stopped_at IS NULL
                            AND w.last_heartbeat_at > now() - coalesce(w.lease_ms, :host_stale_ms) * interval '1 millisecond'
                            AND w.queues @> jsonb_build_array(o.queue)))
    ORDER BY priority DESC, id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
UPDATE skiplock_jobs AS j
SET locked_by = :worker, locked_until = now() + :lease_ms * interval '1 millisecond', lease_token = :token
FROM orphans
WHERE j.id = orphans.id
  AND set_config('synchronous_commit', 'off', true) IS NOT NULL -- as in claim_jobs
RETURNING j.*, CAST(EXTRACT(EPOCH FROM now() - j.started_at) * 1000 AS bigint) AS elapsed_ms

-- name: heartbeat
-- One statement per worker per interval, whatever the number of jobs held. A held job missing
-- from the answer has lost its lease (reaped, adopted, or finalized elsewhere): its execution must stop.
WITH h AS (
    SELECT * FROM jsonb_to_recordset(CAST(:held AS jsonb)) AS h(id uuid, token uuid) ORDER BY id
), locked AS (
    -- Locks each listed row through its primary key, one at a time in id order: the order that
    -- heartbeat, complete_jobs and release_jobs share, so this worker's statements never deadlock
    -- with each other. Driving the join from the batch also keeps the plan independent of
    -- statistics: joined the other way, a planner with stale statistics scanned every running row
    -- once per batch entry (measured: 13.7 s instead of 55 ms for 1,000 outcomes over 20,000 running jobs).
    -- A row another transaction holds is skipped, not waited for: a handler may have completed its
    -- job in its own transaction after the worker listed it, and waiting there held every other
    -- lease of the worker unextended until that transaction ended. FOR NO KEY UPDATE (what the
    -- update takes anyway): the job's own log, step and step-event writes hold its row FOR KEY
    -- SHARE, which this lock does not wait for, nor skip.
    SELECT row.id, row.lease_token, row.status
    FROM h CROSS JOIN LATERAL (
        SELECT j.id, j.lease_token, j.status FROM skiplock_jobs AS j WHERE j.id = h.id
        FOR NO KEY UPDATE SKIP LOCKED) AS row
), extended AS (
    UPDATE skiplock_jobs AS j
    SET locked_until = now() + :lease_ms * interval '1 millisecond'
    FROM locked JOIN h ON h.id = locked.id AND h.token = locked.lease_token
    WHERE j.id = locked.id AND locked.status = 'running'
      -- A lease extension lost in a crash only shortens the lease: no need to wait for the flush.
      AND set_config('synchronous_commit', 'off', true) IS NOT NULL
    RETURNING j.id, j.attempt, j.lease_token AS token, j.cancel_requested
)
SELECT id, attempt, token, cancel_requested, true AS extended FROM extended
UNION ALL
-- A skipped row is still held while the statement's snapshot shows it running under the token:
-- its lease is not extended by this pass (nor taken by a reaper, which skips locked rows too), and
-- LeaseKeeper asks again shortly. The holder's change, if it took the lease, shows then. Read
-- through the primary key from the batch, as above (OFFSET 0 keeps the planner from turning it
-- into a scan of the running jobs on stale statistics).
SELECT row.id, row.attempt, row.lease_token, row.cancel_requested, false
FROM h CROSS JOIN LATERAL (
    SELECT j.id, j.attempt, j.lease_token, j.cancel_requested FROM skiplock_jobs AS j
    WHERE j.id = h.id AND j.lease_token = h.token AND j.status = 'running' OFFSET 0) AS row
WHERE NOT EXISTS (SELECT 1 FROM locked WHERE locked.id = h.id)

-- name: complete_jobs
-- Fenced finalize of many jobs in one statement: a row is written only while its lease token is
-- the one the outcome carries, so a stale execution (its worker paused past the lease, or its
-- claim lost in a crash) changes nothing and learns so from the missing id. A retry of a job
-- whose cancel was requested becomes cancelled instead. Returns the leases applied.
-- The outcomes come as one array per field, the n-th elements together one outcome
-- (Dialect.takesArrays), which the server reads for less than a JSON array of objects (50,000
-- successes in batches of 200, five interleaved runs: 1.5 s of the server's CPU, median, against
-- 2.1 for the JSON array and its join of the batch to the locked rows). Materialized, in id order,
-- as when the statement read it twice: the locks below are taken in that order.
WITH c AS MATERIALIZED (
    SELECT c.id, c.token, c.status, c.delay_ms, CAST(c.result AS jsonb) AS result, c.error, c.extra_attempts
    FROM unnest(CAST(:ids AS uuid[]), CAST(:tokens AS uuid[]), CAST(:statuses AS text[]),
                CAST(:delays_ms AS bigint[]), CAST(:results AS text[]), CAST(:errors AS text[]),
                CAST(:extra_attempts AS integer[]))
         AS c(id, token, status, delay_ms, result, error, extra_attempts)
    ORDER BY id
), locked AS (
    -- Locks each listed row through its primary key, one at a time in id order: the order that
    -- heartbeat, complete_jobs and release_jobs share, so this worker's statements never deadlock
    -- with each other. Driving the join from the batch also keeps the plan independent of
    -- statistics: joined the other way, a planner with stale statistics scanned every running row
    -- once per batch entry (measured: 13.7 s instead of 55 ms for 1,000 outcomes over 20,000 running jobs).
    -- Each locked row carries its outcome, so the update below joins nothing to the batch: a generic
    -- plan expects 10 elements of an array and joined them to the locked rows by a nested loop,
    -- comparing every outcome with every row (a drain of 50,000 jobs at half the rate).
    SELECT c.*, row.lease_token, row.status AS held_status, row.last_error AS held_error
    FROM c CROSS JOIN LATERAL (
        SELECT j.lease_token, j.status, j.last_error FROM skiplock_jobs AS j WHERE j.id = c.id FOR UPDATE) AS row
), done AS (
UPDATE skiplock_jobs AS j
SET status = CASE WHEN c.status = 'queued' AND j.cancel_requested THEN 'cancelled' ELSE c.status END,
    max_attempts = j.max_attempts + c.extra_attempts,
    snoozes = j.snoozes + c.extra_attempts, -- not failures: the backoff leaves them out (migration 0032)
    available_at = CASE WHEN c.status = 'queued'
                        THEN now() + c.delay_ms * interval '1 millisecond' ELSE j.available_at END,
    finished_at = CASE WHEN c.status = 'queued' AND NOT j.cancel_requested THEN NULL ELSE now() END,
    result = NULLIF(c.result, 'null'::jsonb),
    last_error = COALESCE(c.error, j.last_error),
    locked_by = NULL,
    locked_until = NULL,
    lease_token = NULL,
    finished_token = c.token, -- whose outcome this is (migration 0028: completed_by_lease)
    -- A success that leaves last_error as it was is read from the row (migration 0012).
    finished_seq = CASE WHEN c.status = 'succeeded' AND c.error IS NULL
                        THEN nextval('skiplock_job_events_seq_seq') END
FROM locked AS c
WHERE j.id = c.id AND c.token = c.lease_token AND c.held_status = 'running'
-- An event carries last_error only when this outcome changed it (as SQLite's trigger decides).
RETURNING j.id, j.attempt, c.token, j.status, j.finished_seq,
          CASE WHEN j.last_error IS DISTINCT FROM c.held_error THEN j.last_error END AS message
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
    SELECT done.id, done.attempt, 'status', done.status, done.message FROM done WHERE done.finished_seq IS NULL
)
-- Followers of every job that just became terminal learn it from one notification per 100 ids,
-- when a process follows job events: it then holds every slot of the follow key in share mode, so
-- each of this statement's tries fails. A try that succeeds holds its slot until the commit, and a
-- follower that comes meanwhile waits for the commit before it reads (FollowLock.java). The tries
-- start at the backend's own slot and go on to the next until one succeeds: a slot can be held by
-- another process's completion, not only by a follower. A completer usually gets the same
-- connection back from its pool, so with one try two processes whose backends met in a slot met at
-- every overlap: in two of four drains of 200,000 jobs by four processes, 41,533 and 44,876 jobs
-- were announced that nobody followed (docs/PERFORMANCE.md, issue #12).
SELECT done.id, done.attempt, done.token FROM done
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || chunks.ids))
            FROM (SELECT string_agg(CAST(finished.id AS text), ',') AS ids
                  FROM (SELECT id, (row_number() OVER ()) / 100 AS chunk FROM done
                        WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled')) AS finished
                  GROUP BY finished.chunk) AS chunks
            WHERE NOT EXISTS (SELECT FROM generate_series(0, 7) AS slot
                              WHERE pg_try_advisory_xact_lock(hashtext('skiplock-followers:' || current_schema()),
                                                              (pg_backend_pid() + slot) % 8))) AS notified

-- name: release_jobs
-- Graceful shutdown gives back jobs still running at the deadline so another worker takes them at
-- once. Their attempt stays counted; max_attempts grows when needed so the job can still run.
WITH h AS (
    SELECT * FROM jsonb_to_recordset(CAST(:held AS jsonb)) AS h(id uuid, token uuid) ORDER BY id
), locked AS (
    -- Locks each listed row through its primary key, one at a time in id order: the order that
    -- heartbeat, complete_jobs and release_jobs share, so this worker's statements never deadlock
    -- with each other. Driving the join from the batch also keeps the plan independent of
    -- statistics: joined the other way, a planner with stale statistics scanned every running row
    -- once per batch entry (measured: 13.7 s instead of 55 ms for 1,000 outcomes over 20,000 running jobs).
    SELECT row.id, row.lease_token, row.status, row.last_error
    FROM h CROSS JOIN LATERAL (
        SELECT j.id, j.lease_token, j.status, j.last_error FROM skiplock_jobs AS j WHERE j.id = h.id FOR UPDATE) AS row
), done AS (
UPDATE skiplock_jobs AS j
SET status = CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'queued' END,
    finished_at = CASE WHEN j.cancel_requested THEN now() ELSE NULL END,
    available_at = now(),
    max_attempts = GREATEST(j.max_attempts, j.attempt + 1),
    last_error = CASE WHEN j.cancel_requested THEN j.last_error
                      ELSE 'released at worker shutdown during attempt ' || j.attempt END,
    locked_by = NULL,
    locked_until = NULL,
    lease_token = NULL
FROM locked JOIN h ON h.id = locked.id AND h.token = locked.lease_token
WHERE j.id = locked.id AND locked.status = 'running'
RETURNING j.id, j.attempt, j.status,
          CASE WHEN j.last_error IS DISTINCT FROM locked.last_error THEN j.last_error END AS message
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
    SELECT done.id, done.attempt, 'status', done.status, done.message FROM done
)
-- Followers of every job that just became terminal learn it from one notification per 100 ids.
SELECT done.id FROM done
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || chunks.ids))
            FROM (SELECT string_agg(CAST(finished.id AS text), ',') AS ids
                  FROM (SELECT id, (row_number() OVER ()) / 100 AS chunk FROM done
                        WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled')) AS finished
                  GROUP BY finished.chunk) AS chunks) AS notified

-- name: unclaim_jobs
-- Gives back, without using their attempt, the jobs of a claim whose answer never reached the
-- worker (the connection dropped after the claim committed): the worker does not run them, so no
-- execution used that attempt. A job whose cancel was requested meanwhile ends cancelled, as at
-- release. Matches nothing when the claim did not commit. Idempotent; committed durably (no
-- asynchronous commit here: a lost give-back would leave a lease nobody renews until the reaper).
-- The claim's started event stays (its attempt is given back, but it happened): it becomes a row.
WITH held AS (
    SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
    WHERE queue = :queue AND status = 'running' AND lease_token = :token AND claim_token = :token -- skiplock_jobs_running
    FOR UPDATE
), given_back AS (
    UPDATE skiplock_jobs AS j
    SET status = CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'queued' END,
        finished_at = CASE WHEN j.cancel_requested THEN now() END,
        attempt = j.attempt - 1, locked_by = NULL, locked_until = NULL,
        lease_token = NULL, claim_token = NULL, host = NULL, started_seq = NULL
    FROM held
    WHERE j.id = held.id
    RETURNING j.id, j.attempt, j.queue, j.status
), started AS (
    INSERT INTO skiplock_job_events (seq, job_id, ts, attempt, type, status) OVERRIDING SYSTEM VALUE
    SELECT held.started_seq, held.id, held.started_at, held.attempt, 'status', 'running'
    FROM held JOIN given_back ON given_back.id = held.id
    WHERE held.started_seq IS NOT NULL
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    SELECT given_back.id, given_back.attempt, 'status', given_back.status FROM given_back
)
SELECT given_back.id FROM given_back
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(),
                                   CASE WHEN changed.status = 'cancelled' THEN 'e:' || changed.id
                                        ELSE 'q:' || changed.queue END))
            FROM given_back AS changed) AS notified

-- name: completed_by_lease
-- Whether the outcome :status of the lease :token for attempt :attempt is what the job's row holds:
-- written by that lease (finished_token, migration 0028) with that status (a retry's queued, or the
-- cancelled a requested cancel makes of it). The completer asks it of an outcome its write did not
-- apply, after an earlier write of the same batch lost its answer with the connection: that write
-- may have committed, and the outcome is then this worker's, not a stale one. (An adopter's outcome
-- was written under another lease token.)
SELECT 1 FROM skiplock_jobs
WHERE id = :id AND attempt = :attempt AND finished_token = :token
  AND (status = :status OR (:status = 'queued' AND status = 'cancelled'))

-- name: execution_running
-- Whether the job still runs the execution a worker lost the lease of: if not, nobody will ever
-- adopt that execution, and its worker stops it (a command's process) instead of leaving it.
SELECT 1 FROM skiplock_jobs WHERE id = :id AND status = 'running' AND claim_token = :execution_id

-- name: reap_expired_leases
-- Clears the lease (and its token: the stale holder can no longer write) of running jobs whose
-- owner stopped heartbeating, up to :limit per statement (the store runs it again while it finds
-- that many: JobStore.reapExpiredLeases). Keeps status and attempt: adoption decides
-- what happened. Returns each orphan's queue and tells every node ('o:' notification per queue),
-- so the claimers of those queues adopt them wherever they run. Idempotent, so every node may run it; SKIP
-- LOCKED leaves rows another statement is writing to the next round. The ids go through an array
-- so the update always walks the primary key, whatever the statistics say.
WITH reaped AS (
    UPDATE skiplock_jobs
    SET locked_by = NULL, locked_until = NULL, lease_token = NULL
    WHERE id = ANY(ARRAY(
        SELECT id FROM skiplock_jobs
        WHERE status = 'running' AND locked_until < now()
        ORDER BY id
        LIMIT :limit
        FOR UPDATE SKIP LOCKED))
    RETURNING queue
)
SELECT reaped.queue FROM reaped
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'o:' || queues.queue))
            FROM (SELECT DISTINCT queue FROM reaped) AS queues) AS notified

-- name: cancel_job
-- Waiting or queued: cancelled at once. Running: only flagged, and the owner is told by
-- notification (else its next heartbeat); it stops the execution and writes the final status, fenced.
-- A job cancelled here is terminal at once: its event is written and its followers are told.
WITH changed AS (
    UPDATE skiplock_jobs
    SET status = CASE WHEN status = 'running' THEN status ELSE 'cancelled' END,
        finished_at = CASE WHEN status = 'running' THEN finished_at ELSE now() END,
        cancel_requested = CASE WHEN status = 'running' THEN true ELSE cancel_requested END
    WHERE tenant = :tenant AND id = :id AND status IN ('waiting', 'queued', 'running')
    RETURNING *
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    SELECT cancelled.id, cancelled.attempt, 'status', 'cancelled' FROM changed AS cancelled
    WHERE cancelled.status = 'cancelled'
)
SELECT changed.* FROM changed
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(),
                                   CASE WHEN job.status = 'running' THEN 'c:' ELSE 'e:' END || job.id))
            FROM changed AS job) AS notified

-- name: retry_job
-- One more attempt for a terminal job; attempt keeps counting, max_attempts grows if used up. A
-- job whose dependencies have not all succeeded waits for them again; one with a failed, timed
-- out, cancelled or deleted dependency is not retried (the caller names it: failed_dependency;
-- a dependency deleted after it ended keeps its outcome, migration 0030).
-- A succeeded job's finished event, read from its row until now (migration 0012), becomes a row.
WITH held AS (
    SELECT id, finished_seq, finished_at, attempt FROM skiplock_jobs
    WHERE tenant = :tenant AND id = :id AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
    FOR UPDATE
), retried AS (
    UPDATE skiplock_jobs AS j
    SET status = CASE WHEN EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                                   WHERE d.job_id = j.id AND d.status <> 'succeeded')
                      THEN 'waiting' ELSE 'queued' END,
        available_at = now(), finished_at = NULL, cancel_requested = false, finished_seq = NULL,
        result = NULL, max_attempts = GREATEST(j.max_attempts, j.attempt + 1)
    FROM held
    WHERE j.id = held.id
      AND NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                      WHERE d.job_id = j.id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted'))
    RETURNING j.*
), finished AS (
    INSERT INTO skiplock_job_events (seq, job_id, ts, attempt, type, status) OVERRIDING SYSTEM VALUE
    SELECT held.finished_seq, held.id, held.finished_at, held.attempt, 'status', 'succeeded'
    FROM held JOIN retried ON retried.id = held.id
    WHERE held.finished_seq IS NOT NULL
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    SELECT retried.id, retried.attempt, 'status', retried.status FROM retried
)
SELECT retried.* FROM retried
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'q:' || queued.queue))
            FROM retried AS queued WHERE queued.status = 'queued') AS notified

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
-- Without that bound a run that found fewer than :limit jobs read the whole history: PostgreSQL
-- planned a sequential scan of the table (and JIT-compiled it) whenever the statistics held few
-- jobs past the cutoff, which is a steady state's every run (1.7-3.4 s at 10 million jobs,
-- docs/PERFORMANCE.md). Bounded batches keep each transaction (and its locks) short.
-- The outer WHERE repeats the status test: a job retried after the inner SELECT's snapshot is
-- re-checked on its new row version when the DELETE reaches it (READ COMMITTED re-evaluates only
-- the outer conditions; by its id alone it was deleted queued). A run's batches each start past the
-- last id the one before deleted (:after; Retention): from the oldest, each walked again the jobs
-- still there below it and, while a long transaction held vacuum back, the index entries of every
-- job the run had deleted (JobStore.pruneFinished).
DELETE FROM skiplock_jobs
WHERE id IN (
    SELECT id FROM skiplock_jobs
    WHERE id > :after AND id < :enqueued_before
      AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
      AND finished_at < now() - :age_ms * interval '1 millisecond'
    ORDER BY id
    LIMIT :limit)
  AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
  AND finished_at < now() - :age_ms * interval '1 millisecond'
RETURNING id

-- name: count_jobs
-- Jobs per queue and status of one tenant (GET /queues, the dashboard): its folded sums by their
-- key (skiplock_job_counts_folded, migration 0022) and the deltas the triggers and the enqueue
-- statements appended since the last fold (skiplock_job_counts, few: a row per statement and
-- group), in one snapshot. Never a count over the jobs themselves.
SELECT queue, status, sum(jobs) AS jobs FROM (
    SELECT queue, status, jobs FROM skiplock_job_counts_folded WHERE tenant = :tenant
    UNION ALL
    SELECT queue, status, jobs FROM skiplock_job_counts WHERE tenant = :tenant
) AS counted
GROUP BY queue, status
HAVING sum(jobs) <> 0

-- name: count_jobs_all_tenants
-- count_jobs over every tenant (an admin's view, the depth gauges, benchmarks' final check): the
-- folded sums of every tenant, a row per queue and status that triggers keep with the folded sums
-- (skiplock_job_counts_all_tenants, migration 0023; it summed every tenant's folded rows: 23-29 ms
-- at 10,000 tenants of 3 queues), and the deltas not folded yet, in one snapshot. A statement of its
-- own, so a tenant's count is an index condition in every plan.
SELECT queue, status, sum(jobs) AS jobs FROM (
    SELECT queue, status, jobs FROM skiplock_job_counts_all_tenants
    UNION ALL
    SELECT queue, status, jobs FROM skiplock_job_counts
) AS counted
GROUP BY queue, status
HAVING sum(jobs) <> 0

-- name: compact_job_counts
-- Moves the deltas into the folded sums (the reaper, every reaperInterval, any node): reads only
-- the deltas appended since the last fold (migration 0022; it grouped the whole table before: 76-92
-- ms at 120,000 groups with nothing to fold, 1-2 ms now). Mostly one node at a time (a transaction-scoped
-- advisory lock per schema, tried row by row: a second fold skips the rows while the first holds
-- it); either way each delta it deletes it adds to its group's sum, and rows another fold deleted
-- meanwhile are skipped, so the sums stay exact. Deltas appended while it runs are not in its
-- snapshot and stay for the next turn. A quiet system writes nothing.
WITH folded AS (
    DELETE FROM skiplock_job_counts
    WHERE pg_try_advisory_xact_lock(hashtext('skiplock_job_counts:' || current_schema()))
    RETURNING tenant, queue, status, jobs)
INSERT INTO skiplock_job_counts_folded AS sums (tenant, queue, status, jobs)
SELECT tenant, queue, status, sum(jobs) FROM folded
GROUP BY tenant, queue, status
HAVING sum(jobs) <> 0
ON CONFLICT (tenant, queue, status) DO UPDATE SET jobs = sums.jobs + excluded.jobs

-- name: compact_job_throughput
-- Folds the finishes per tenant, queue and minute into one row each and drops minutes over an
-- hour old (the reaper, with compact_job_counts; one node at a time). Deltas are appended to the
-- minute of their statement's now(), so only the minutes since :fold_ms ago are folded: the
-- store passes the reaper's interval and a minute, so that a reaper keeping its interval folds
-- each minute once after it ends. A minute it misses (a delta of an older transaction, a turn
-- that failed or came late: the reaper runs with a fixed delay) keeps its rows, summed as they are
-- until they expire. The window stops at the hour, so the two deletes never meet on a row (a
-- long reaper interval). Both read by skiplock_job_throughput_minute (migration 0021): the whole
-- table was grouped at every turn, in every process (1,001 tenants of 3 queues, 185,183 rows:
-- 83-94 ms a turn, 7 ms now).
WITH expired AS (
    DELETE FROM skiplock_job_throughput
    WHERE pg_try_advisory_xact_lock(hashtext('skiplock_job_throughput:' || current_schema()))
      AND minute < now() - interval '1 hour'
), folded AS (
    DELETE FROM skiplock_job_throughput
    WHERE pg_try_advisory_xact_lock(hashtext('skiplock_job_throughput:' || current_schema()))
      AND minute >= greatest(date_trunc('minute', now() - :fold_ms * interval '1 millisecond'),
                             now() - interval '1 hour')
      AND (tenant, queue, minute) IN (
          SELECT tenant, queue, minute FROM skiplock_job_throughput
          WHERE minute >= greatest(date_trunc('minute', now() - :fold_ms * interval '1 millisecond'),
                                   now() - interval '1 hour')
          GROUP BY tenant, queue, minute HAVING count(*) > 1)
    RETURNING tenant, queue, minute, finished)
INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
SELECT tenant, queue, minute, sum(finished) FROM folded
GROUP BY tenant, queue, minute

-- name: queue_activity
-- Per queue of one tenant (all with a null tenant): jobs finished in each of the last 15 minutes
-- (minutes_ago 0 = this minute), from skiplock_job_throughput: those minutes only, by
-- skiplock_job_throughput_minute (migration 0021; the table keeps an hour).
SELECT queue, CAST(EXTRACT(EPOCH FROM date_trunc('minute', now()) - minute) / 60 AS integer) AS minutes_ago,
       sum(finished) AS finished
FROM skiplock_job_throughput
WHERE (CAST(:tenant AS text) IS NULL OR tenant = :tenant)
  AND minute > date_trunc('minute', now()) - interval '15 minutes'
GROUP BY queue, minute

-- name: oldest_queued
-- Per queue of one tenant (all with a null tenant): when its longest-waiting available job became
-- available. Reads every queued job, delayed ones included: the cheaper read while queues hold few
-- jobs each, or other tenants' jobs lie among the tenant's; else the store reads
-- oldest_queued_by_priority.
SELECT queue, min(available_at) AS oldest FROM skiplock_jobs
WHERE status = 'queued' AND available_at <= now()
  AND (CAST(:tenant AS text) IS NULL OR tenant = :tenant)
GROUP BY queue

-- name: oldest_queued_by_priority
-- oldest_queued, for queues of many jobs, all of the tenant's (OldestQueuedRead
-- chooses). A priority's first entry in skiplock_jobs_claimable is its oldest job, so this reads a
-- few entries per queue and priority: the queues with queued jobs, each found by one probe of the
-- index past the last (queues); their priorities, each found by one probe below the last (levels,
-- as in the claim); in each priority its first due job (the tenant's: rows are read until one is
-- the tenant's), once per priority (firsts is materialized: inlined, the aggregate and HAVING each
-- ran it). Prepared as JDBC runs it, 7 calls each (oldest_queued, then this): 500,000 jobs delayed
-- by a day, 55-70 ms and 0.24-0.8 ms; 2,001 priorities of 250 delayed jobs, 50-76 ms and 24-26 ms;
-- 5,000 queues of 9 due jobs, 17-24 ms and 157-171 ms (the store walks those).
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
                     AND j.available_at <= now() AND (CAST(:tenant AS text) IS NULL OR j.tenant = :tenant)
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
-- The dependencies of jobs being enqueued, read without a lock: a lock held until the caller's
-- transaction commits would stall the worker finishing a dependency (its whole completion batch
-- and heartbeat). A dependency that finishes before the enqueue commits does not see the new
-- dependency rows; settle_waiting_jobs releases (or fails) such a job at the reaper's next search.
SELECT id, status FROM skiplock_jobs
WHERE tenant = :tenant AND id IN (SELECT CAST(value AS uuid) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)))

-- name: insert_dependencies
-- outcome: the status the enqueue read, when the dependency had ended (else absent: NULL).
INSERT INTO skiplock_job_dependencies (job_id, depends_on, outcome)
SELECT e.job_id, e.depends_on, e.outcome
FROM jsonb_to_recordset(CAST(:edges AS jsonb)) AS e(job_id uuid, depends_on uuid, outcome text)

-- name: take_maintenance_turn
-- The reaper's turn at :task (migration 0026): taken, and the task's row returned, when :worker
-- took it last, or no process took it within the last :interval_ms (the caller's reaper interval),
-- or its time lies more than that ahead (the database's clock was set back); else no row. Two
-- processes asking at once: the second waits for the first's row lock, then re-checks the row the
-- first wrote, whose time may lie a little after the second's now() (the start of its statement,
-- taken before it waited): only a time more than an interval ahead is stale.
INSERT INTO skiplock_maintenance_turns AS turns (task, taken_at, taken_by) VALUES (:task, now(), :worker)
ON CONFLICT (task) DO UPDATE SET taken_at = excluded.taken_at, taken_by = excluded.taken_by
WHERE turns.taken_by = excluded.taken_by
   OR turns.taken_at <= excluded.taken_at - CAST(:interval_ms AS bigint) * interval '1 millisecond'
   OR turns.taken_at > excluded.taken_at + CAST(:interval_ms AS bigint) * interval '1 millisecond'
RETURNING task

-- name: give_back_maintenance_turn
-- A turn whose work failed is free again at once (unless another process took it since), so that
-- a process failing at the work does not keep the others from it.
UPDATE skiplock_maintenance_turns SET taken_at = '-infinity'
WHERE task = :task AND taken_by = :worker

-- name: find_settleable_jobs
-- The backstop of dependency release, run by the reaper whose turn it is: the waiting jobs (up to
-- 1,000, by id) whose dependencies all succeeded, or one of which failed, timed out, was
-- cancelled or deleted. The dependency trigger releases such a job at once; this finds one whose
-- dependency finished while its enqueue was still uncommitted. A dependency reads 'deleted' when
-- its row was deleted (rm, retention) before the dependent's enqueue committed, so that nothing
-- recorded how it ended (skiplock_dependency_states, migration 0030): the dependent fails. Walks skiplock_jobs_waiting and reads every
-- waiting job's dependencies, mostly to find nothing; locks nothing: settle_waiting_jobs settles
-- what it finds. From the id :after on (the zero UUID first, then the last id the search before
-- found, in one settle).
-- The failed dependency is looked for by a scalar subquery per waiting job, as when this search
-- was part of settle_waiting_jobs: as an EXISTS, PostgreSQL may plan it as one hashed read of every
-- dependency row joined to every failed, timed out or cancelled job, found by reading the whole of
-- skiplock_jobs_history_status (its tenant leads), which the history makes large.
SELECT w.id FROM skiplock_jobs AS w
WHERE w.status = 'waiting' AND w.id > CAST(:after AS uuid)
  AND ((SELECT 1 FROM skiplock_dependency_states AS d
        WHERE d.job_id = w.id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted')
        LIMIT 1) IS NOT NULL
       OR NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                      WHERE d.job_id = w.id AND d.status <> 'succeeded'))
ORDER BY w.id
LIMIT 1000

-- name: settle_waiting_jobs
-- Settles the jobs find_settleable_jobs found (:ids, a JSON array): a waiting job whose
-- dependencies all succeeded is queued, one with a failed, timed out, cancelled or deleted
-- dependency fails naming it ("dependency <id> deleted": see find_settleable_jobs). Each job and its dependencies are read again, as of this statement's start: a job
-- cancelled or settled since the search is left as it is, one whose dependency was retried since
-- waits for it again. A job changed while this runs is re-checked on its locked row (status
-- waiting); its dependencies are not: one retried meanwhile leaves the job settled on the
-- dependency's finish, as the trigger would have released it then (what the old single statement
-- did too). Locks only the jobs it settles, skipping one another transaction holds (a later
-- search finds it again).
WITH candidates AS (
    SELECT w.id,
           (SELECT d.depends_on || ' ' || d.status FROM skiplock_dependency_states AS d
            WHERE d.job_id = w.id AND d.status IN ('failed', 'timed_out', 'cancelled', 'deleted')
            ORDER BY d.depends_on LIMIT 1) AS failed_dependency,
           NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                       WHERE d.job_id = w.id AND d.status <> 'succeeded') AS ready
    FROM skiplock_jobs AS w
    WHERE w.id IN (SELECT CAST(value AS uuid) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)))
      AND w.status = 'waiting'
), waiting AS (
    SELECT candidates.* FROM candidates
    JOIN skiplock_jobs AS j ON j.id = candidates.id
    WHERE candidates.failed_dependency IS NOT NULL OR candidates.ready
    ORDER BY candidates.id
    FOR UPDATE OF j SKIP LOCKED
), settled AS (
    UPDATE skiplock_jobs AS j
    SET status = CASE WHEN waiting.failed_dependency IS NOT NULL THEN 'failed' ELSE 'queued' END,
        finished_at = CASE WHEN waiting.failed_dependency IS NOT NULL THEN now() END,
        available_at = CASE WHEN waiting.failed_dependency IS NOT NULL THEN j.available_at
                            ELSE GREATEST(j.available_at, now()) END, -- a runAt still to come is kept (0027)
        last_error = CASE WHEN waiting.failed_dependency IS NOT NULL
                          THEN 'dependency ' || waiting.failed_dependency ELSE j.last_error END
    FROM waiting
    WHERE j.id = waiting.id AND j.status = 'waiting'
      AND (waiting.failed_dependency IS NOT NULL OR waiting.ready)
    RETURNING j.id, j.attempt, j.queue, j.status, j.last_error
), events AS (
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
    SELECT settled.id, settled.attempt, 'status', settled.status,
           CASE WHEN settled.status = 'failed' THEN settled.last_error END
    FROM settled
)
SELECT settled.id FROM settled
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'q:' || queues.queue))
            FROM (SELECT DISTINCT queue FROM settled WHERE status = 'queued') AS queues) AS notified
CROSS JOIN (SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || failed.id))
            FROM settled AS failed WHERE failed.status = 'failed') AS announced
