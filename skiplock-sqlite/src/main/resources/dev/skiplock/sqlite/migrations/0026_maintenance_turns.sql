-- Turns at reaper work that one process can do for all (see PostgreSQL's migration of the same
-- name): processes sharing the file search for waiting jobs to settle about once a reaper interval
-- between them (take_maintenance_turn), not once each. taken_at: epoch milliseconds.
CREATE TABLE skiplock_maintenance_turns (
    task     TEXT    PRIMARY KEY,
    taken_at INTEGER NOT NULL,
    taken_by TEXT    NOT NULL
) WITHOUT ROWID;
