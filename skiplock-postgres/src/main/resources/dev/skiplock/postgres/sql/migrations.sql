-- name: lock_migrations
-- Serializes migrators of this schema across processes until the migration transaction ends;
-- taken before CREATE TABLE IF NOT EXISTS, which can itself fail when two sessions race.
SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':skiplock-migrations'))

-- name: create_migrations_table
CREATE TABLE IF NOT EXISTS skiplock_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)

-- name: applied_migrations
SELECT version FROM skiplock_migrations ORDER BY version

-- name: record_migration
INSERT INTO skiplock_migrations (version, name) VALUES (:version, :name)
