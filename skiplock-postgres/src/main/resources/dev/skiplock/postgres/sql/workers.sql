-- name: register_worker
INSERT INTO skiplock_workers (id, host, pid, queues, concurrency)
VALUES (:id, :host, :pid, CAST(:queues AS jsonb), :concurrency)
ON CONFLICT (id) DO UPDATE SET last_heartbeat_at = now(), stopped_at = NULL

-- name: touch_worker
UPDATE skiplock_workers SET last_heartbeat_at = now() WHERE id = :id

-- name: stop_worker
UPDATE skiplock_workers SET stopped_at = now() WHERE id = :id

-- name: list_workers
-- A worker that missed three heartbeats is stale; the database clock decides.
SELECT id, host, pid, queues, concurrency, started_at, last_heartbeat_at,
       CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
            WHEN last_heartbeat_at < now() - 3 * :heartbeat_ms * interval '1 millisecond' THEN 'stale'
            ELSE 'active' END AS status
FROM skiplock_workers
ORDER BY started_at DESC
LIMIT 500
