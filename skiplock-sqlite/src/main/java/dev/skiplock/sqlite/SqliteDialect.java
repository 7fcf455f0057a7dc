package dev.skiplock.sqlite;

import dev.skiplock.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * UUIDs as TEXT (UUIDv7 text sorts in time order), instants as INTEGER Unix milliseconds; a claim
 * commits without syncing the WAL ({@link #relaxClaimCommit}).
 */
final class SqliteDialect implements Dialect {
    /** {@code PRAGMA synchronous}'s level that commits without syncing the WAL. */
    static final int NORMAL = 1;
    private static final String SYNCHRONOUS = "PRAGMA synchronous";
    private static final String JOURNAL_MODE = "PRAGMA journal_mode";
    /** Sets each level of {@code PRAGMA synchronous}, by its number (OFF 0, NORMAL 1, FULL 2, EXTRA 3). */
    private static final List<String> SET_SYNCHRONOUS = List.of("PRAGMA synchronous = OFF",
            "PRAGMA synchronous = NORMAL", "PRAGMA synchronous = FULL", "PRAGMA synchronous = EXTRA");

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

    /**
     * The claim's update stays under the write lock; reading the claimed rows' every column and
     * mapping them does not need it. A drain of 50,000 jobs (async-profiler, wall clock, two runs
     * each): the claims held the lock 1.26-1.30 s, 0.32 s of it mapping the rows they returned;
     * reading them after the commit, 0.96-0.98 s, and the reads took 0.32-0.34 s outside it.
     */
    @Override
    public boolean readsClaimedJobsAfterCommit() {
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
     * process loses nothing, a power loss may lose the claim. The next commit that writes at the
     * default {@code FULL} (an enqueue, an outcome, a heartbeat that extends a lease) syncs them
     * too, as the WAL is one file, written in order. A claim commits more often than the outcomes
     * it leads to (bench drain: claims of about 65 jobs, success batches of about 160), so at
     * {@code FULL} claims made most of a drain's syncs (measured, {@code bench drain --n 20000}: 521
     * syncs, 323 now). Where a sync is slow the drain gains most: with each sync made 1 ms longer (an
     * LD_PRELOAD shim) it ran 1.29 x as fast, median of 5 interleaved pairs; with this VM's 0.1-0.2
     * ms syncs, within the noise (1.03 x, median of 20 pairs).
     *
     * <p>Nothing changes with a rollback journal (there NORMAL may corrupt the file on a power loss)
     * or a shared cache (whose connections share one pager, and so the level: an outcome committed
     * on another connection meanwhile would not sync).
     */
    @Override
    public CommitSync relaxClaimCommit(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            return CommitSync.UNCHANGED; // in the caller's transaction: the pragma would be refused
        }
        int level = synchronousLevel(connection);
        if (level <= NORMAL || !"wal".equalsIgnoreCase(read(connection, JOURNAL_MODE)) || sharesCache(connection)) {
            return CommitSync.UNCHANGED;
        }
        setSynchronous(connection, NORMAL);
        return () -> setSynchronous(connection, level);
    }

    static int synchronousLevel(Connection connection) throws SQLException {
        return Integer.parseInt(read(connection, SYNCHRONOUS));
    }

    /** Opened with a shared cache: sqlite-jdbc's {@code shared_cache=true} or a URI's {@code cache=shared}. */
    private static boolean sharesCache(Connection connection) throws SQLException {
        String url = connection.getMetaData().getURL().toLowerCase(Locale.ROOT);
        return url.contains("shared_cache=true") || url.contains("cache=shared");
    }

    private static String read(Connection connection, String pragma) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(pragma);
             ResultSet value = read.executeQuery()) {
            return value.getString(1);
        }
    }

    /**
     * SQLite applies a pragma that sets a value when it compiles it, and compiles it again at each
     * run of a prepared one (a run-once program): a statement the pool's connection keeps
     * ({@link StatementKeepingConnection}) sets the level at each execution.
     */
    private static void setSynchronous(Connection connection, int level) throws SQLException {
        try (PreparedStatement set = connection.prepareStatement(SET_SYNCHRONOUS.get(level))) {
            set.execute();
        }
    }
}
