package dev.skiplock;

/**
 * The database's schema was migrated by a newer Skiplock than this one. An instance is not built on
 * such a schema (it may rely on statements this version does not run); one already running goes on,
 * as each migration's note in the README says, and {@link Skiplock#pendingMigrations()} says so with
 * this exception.
 */
public class SchemaNewerException extends SkiplockException {
    public SchemaNewerException(String message) {
        super(message);
    }
}
