-- name: lock_migrations
-- Nothing to take: the migrator's transaction starts with BEGIN IMMEDIATE (the driver sets
-- transaction_mode=IMMEDIATE), which already holds SQLite's one write lock for the whole file.
SELECT 1

-- name: create_migrations_table
CREATE TABLE IF NOT EXISTS skiplock_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER))
)

-- name: applied_migrations
SELECT version FROM skiplock_migrations ORDER BY version

-- name: record_migration
INSERT INTO skiplock_migrations (version, name) VALUES (:version, :name)
