-- name: register_worker
-- An id registered again describes the instance that registers it now: a fixed id given to a new
-- instance (its queues, host, pid and lease) as well as this instance after prune_workers deleted
-- its row. lease_ms: how long its leases last, which adopt_orphans judges its heartbeat by.
INSERT INTO skiplock_workers (id, host, pid, queues, concurrency, lease_ms)
VALUES (:id, :host, :pid, :queues, :concurrency, :lease_ms)
ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, queues = excluded.queues,
    concurrency = excluded.concurrency, lease_ms = excluded.lease_ms,
    started_at = CASE WHEN skiplock_workers.host = excluded.host AND skiplock_workers.pid = excluded.pid
                      THEN skiplock_workers.started_at ELSE CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    last_heartbeat_at = CAST(unixepoch('subsec') * 1000 AS INTEGER), stopped_at = NULL

-- name: touch_worker
-- Updates no row once prune_workers deleted it (a worker silent for a day or more): the heartbeat
-- registers the worker again.
UPDATE skiplock_workers SET last_heartbeat_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = :id

-- name: stop_worker
-- Only while the row is this instance's: a fixed id registered since by an instance of another
-- host or process is that instance's row, and a stop written there would stand for good (touch_worker
-- does not clear it).
UPDATE skiplock_workers SET stopped_at = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE id = :id AND host = :host AND pid = :pid

-- name: list_workers
-- A worker silent longer than its own lease is stale, as adopt_orphans judges it (a row written
-- before its lease was kept: three of the viewer's heartbeats); the database clock decides. Active
-- workers come first, then stale ones, then stopped ones, so no number of workers that crashed or
-- stopped since it started hides one that runs from the list's 500.
SELECT * FROM (
    SELECT id, host, pid, queues, concurrency, started_at, last_heartbeat_at,
           CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
                WHEN last_heartbeat_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - coalesce(lease_ms, 3 * :heartbeat_ms) THEN 'stale'
                ELSE 'active' END AS status
    FROM skiplock_workers) AS w
ORDER BY CASE w.status WHEN 'active' THEN 0 WHEN 'stale' THEN 1 ELSE 2 END, w.started_at DESC
LIMIT 500

-- name: count_workers
-- The registry's rows per status, as list_workers tells them (the skiplock.workers gauge): all of
-- them, not the list's 500, which a day of restarts of a busy deployment outgrows.
SELECT w.status, count(*) AS workers FROM (
    SELECT CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
                WHEN last_heartbeat_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - coalesce(lease_ms, 3 * :heartbeat_ms) THEN 'stale'
                ELSE 'active' END AS status
    FROM skiplock_workers) AS w
GROUP BY w.status

-- name: prune_workers
-- Retention: deletes up to :limit rows of workers stopped, or silent, longer than :age_ms ago
-- (database clock). The caller never passes less than a day, far above any heartbeat interval.
DELETE FROM skiplock_workers
WHERE id IN (
    SELECT id FROM skiplock_workers
    WHERE last_heartbeat_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms
      AND (stopped_at IS NULL OR stopped_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms)
    LIMIT :limit)
