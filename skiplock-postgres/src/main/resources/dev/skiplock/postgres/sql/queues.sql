-- name: set_paused
INSERT INTO skiplock_queues (queue, paused) VALUES (:queue, :paused)
ON CONFLICT (queue) DO UPDATE SET paused = EXCLUDED.paused

-- name: list_paused
SELECT queue FROM skiplock_queues WHERE paused
