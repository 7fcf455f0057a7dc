package dev.skiplock.spi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

/** The few types whose JDBC binding differs between databases. Implementations are stateless. */
public interface Dialect {
    void setUuid(PreparedStatement statement, int index, UUID value) throws SQLException;

    UUID getUuid(ResultSet row, int column) throws SQLException;

    /** Binds an instant; {@code null} binds SQL NULL of the instant's column type. */
    void setInstant(PreparedStatement statement, int index, Instant value) throws SQLException;

    /** Reads an instant column; SQL NULL reads as {@code null}. */
    Instant getInstant(ResultSet row, int column) throws SQLException;

    /** True if the exception reports a unique-constraint violation. */
    boolean isUniqueViolation(SQLException exception);

    /**
     * True if the statement failed because of the data it carried (a value the database cannot
     * store), so sending it again fails again; false for failures of the connection or the server.
     */
    boolean isDataError(SQLException exception);

    /**
     * The statement's best plan depends on each call's values (a statement marked
     * {@code -- plan: per call}: optional filters that decide which index fits): plan it for each
     * call instead of reusing a plan made for any values. Default: nothing to do.
     */
    default void planPerCall(PreparedStatement statement) throws SQLException {
    }

    /**
     * Turns the database's JIT compilation of query plans off until the transaction open on
     * {@code transaction} ends (autocommit off: outside a transaction it would not hold). A
     * statement that the planner estimates costly (the reaper's, on a large table without fresh
     * statistics) would otherwise pay that compilation at every run, for a plan that reads a few
     * rows. Default: nothing to do (no JIT).
     */
    default void disableJit(Connection transaction) throws SQLException {
    }

    /**
     * True if a statement can notify the listeners of other connections and processes, delivered
     * at its commit (PostgreSQL's {@code NOTIFY}); then an enqueue statement asked to notify
     * ({@code :notify}) needs no announcement after its commit. Default: false.
     */
    default boolean statementsNotify() {
        return false;
    }

    /**
     * True if a statement takes a list as one array parameter ({@code CAST(:ids AS uuid[])}, bound
     * by {@link #setArray} with the element types {@code uuid}, {@code text}, {@code int8} and
     * {@code int4}): {@code complete_jobs} then takes its outcomes as
     * one array per field, which the database reads without parsing. Default: false (it takes them
     * as a JSON array of objects, {@code :completions}).
     */
    default boolean takesArrays() {
        return false;
    }

    /**
     * Binds {@code elements} (typed by their Java class: {@code UUID[]}, {@code String[]},
     * {@code Long[]}, {@code Integer[]}; elements may be null) as one array of {@code elementType},
     * the database's name of the element type, where the dialect {@link #takesArrays}. Default:
     * {@link Connection#createArrayOf}, encoded as the JDBC driver encodes those elements.
     */
    default void setArray(PreparedStatement statement, int index, String elementType, Object[] elements)
            throws SQLException {
        statement.setArray(index, statement.getConnection().createArrayOf(elementType, elements));
    }

    /**
     * True if the database runs one write transaction at a time (SQLite): a write then waits for the
     * others before it runs, and a claim asks how many jobs it may take only once it holds the write
     * lock, so the slots freed while it waited go into the same statement. Default: false.
     */
    default boolean writesOneAtATime() {
        return false;
    }

    /**
     * True if {@code claim_jobs} returns only each claimed job's {@code id}, {@code tenant} and
     * {@code queue} (what the claim's bookkeeping reads), and the store reads the jobs' rows with
     * {@code read_claimed_jobs} once the claim has committed: where writes go one at a time
     * (SQLite), the claim then holds the write lock for its update alone, not for reading a hundred
     * rows' every column. A job whose lease changed hands between the commit and the read is not
     * read, so not run. Default: false ({@code claim_jobs} returns the rows).
     */
    default boolean readsClaimedJobsAfterCommit() {
        return false;
    }

    /**
     * True if the hot path's claim and successful completion fire no status trigger (SQLite,
     * migration 0017): the store then moves the events' counter past the seqs those statements gave
     * (the rows carry those events, SQLite migration 0018) and writes their counts, finishes per
     * minute and dependents' release itself, with the statements of the driver's {@code hot_path.sql},
     * in the transaction of the change. Default: false (the claim's and completion's statements do it).
     */
    default boolean hotPathBookkeptByStore() {
        return false;
    }

    /**
     * Lets the next transaction on {@code connection}, a claim's, commit without waiting for its
     * write to reach the disk, and returns what puts the connection back as it was once that
     * transaction has ended. A claim that a power loss takes back only makes its jobs claimable
     * again, and the next claim draws a new token, so the lost claim's execution can never write
     * (README, Guarantees). Default: nothing to do (PostgreSQL's claim turns
     * {@code synchronous_commit} off in its own statement, for its transaction only).
     */
    default CommitSync relaxClaimCommit(Connection connection) throws SQLException {
        return CommitSync.UNCHANGED;
    }

    /** Puts back what {@link #relaxClaimCommit} changed on a connection. */
    @FunctionalInterface
    interface CommitSync {
        /** Nothing was changed. */
        CommitSync UNCHANGED = () -> { };

        void restore() throws SQLException;
    }
}
