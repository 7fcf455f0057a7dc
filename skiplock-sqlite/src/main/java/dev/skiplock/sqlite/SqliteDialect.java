package dev.skiplock.sqlite;

import dev.skiplock.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.UUID;

/** UUIDs as TEXT (UUIDv7 text sorts in time order), instants as INTEGER Unix milliseconds. */
final class SqliteDialect implements Dialect {
    /** {@code PRAGMA synchronous}'s level that commits without syncing the WAL. */
    static final int NORMAL = 1;

    @Override
    public void setUuid(PreparedStatement statement, int index, UUID value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.VARCHAR);
        } else {
            statement.setString(index, value.toString());
        }
    }

    @Override
    public UUID getUuid(ResultSet row, int column) throws SQLException {
        String value = row.getString(column);
        return value == null ? null : UUID.fromString(value);
    }

    @Override
    public void setInstant(PreparedStatement statement, int index, Instant value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value.toEpochMilli());
        }
    }

    @Override
    public Instant getInstant(ResultSet row, int column) throws SQLException {
        long value = row.getLong(column);
        return row.wasNull() ? null : Instant.ofEpochMilli(value);
    }

    @Override
    public boolean isUniqueViolation(SQLException exception) {
        return exception.getErrorCode() == 19 && String.valueOf(exception.getMessage()).contains("UNIQUE");
    }

    /** SQLITE_TOOBIG (18), SQLITE_MISMATCH (20), or a JSON value SQLite cannot parse. */
    @Override
    public boolean isDataError(SQLException exception) {
        int code = exception.getErrorCode();
        return code == 18 || code == 20 || String.valueOf(exception.getMessage()).contains("malformed JSON");
    }

    /** One writer at a time per database file ({@code BEGIN IMMEDIATE} takes the write lock). */
    @Override
    public boolean writesOneAtATime() {
        return true;
    }

    /** Row triggers cost most of a claim's and a success's write here, so the hot path fires none (migration 0017). */
    @Override
    public boolean hotPathBookkeptByStore() {
        return true;
    }

    /**
     * {@code PRAGMA synchronous = NORMAL} for the claim's transaction, the level before it put back
     * after (SQLite refuses the pragma inside a transaction). In WAL mode the claim's commit then
     * returns once its frames are written to the WAL file, before they are synced: a crash of the
     * process loses nothing, a power loss may lose the claim. The next commit that syncs (an
     * enqueue, an outcome, a heartbeat at the default {@code FULL}) syncs them too, as the WAL is
     * one file, written in order. A claim commits more often than the outcomes it leads to (bench
     * drain: claims of about 65 jobs, success batches of about 160), so at {@code FULL} claims made
     * most of a drain's syncs (measured, {@code bench drain --n 20000}: 521 syncs, 323 now). Where
     * a sync is slow the drain gains most: with each sync made 1 ms longer (an LD_PRELOAD shim) it
     * ran 1.29 x as fast, median of 5 interleaved pairs; with this VM's 0.1-0.2 ms syncs, within
     * the noise (1.03 x, median of 8 pairs).
     */
    @Override
    public CommitSync claimCommitsWithoutSync(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            return CommitSync.UNCHANGED; // in the caller's transaction: the pragma would be refused
        }
        int level = synchronousLevel(connection);
        // Only in WAL mode: with a rollback journal, NORMAL may corrupt the file on a power loss.
        if (level <= NORMAL || !"wal".equalsIgnoreCase(pragma(connection, "journal_mode"))) {
            return CommitSync.UNCHANGED;
        }
        setSynchronous(connection, NORMAL);
        return () -> setSynchronous(connection, level);
    }

    static int synchronousLevel(Connection connection) throws SQLException {
        return Integer.parseInt(pragma(connection, "synchronous"));
    }

    private static String pragma(Connection connection, String name) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("PRAGMA " + name);
             ResultSet value = read.executeQuery()) {
            return value.getString(1);
        }
    }

    private static void setSynchronous(Connection connection, int level) throws SQLException {
        try (PreparedStatement set = connection.prepareStatement("PRAGMA synchronous = " + level)) {
            set.execute();
        }
    }
}
