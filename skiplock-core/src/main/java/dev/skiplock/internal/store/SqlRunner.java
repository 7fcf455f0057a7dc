package dev.skiplock.internal.store;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.ProxyConnection;
import dev.skiplock.SkiplockException;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.BulkCopy;
import dev.skiplock.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/** Binds named parameters of a statement from one {@link SqlFile} and runs it; every value is bound, never spliced. */
final class SqlRunner {
    /** Reads one row; may throw {@link SQLException}. */
    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    private final DataSource dataSource;
    private final SqlFile file;
    private final Dialect dialect;
    private final String driverName;
    /**
     * The HikariCP pool {@code dataSource} is or wraps, else null: a connection it lent can be
     * evicted from it (see {@link #inClaimTransaction}), and its idle connections counted.
     */
    private final HikariDataSource hikariPool;

    SqlRunner(DataSource dataSource, SqlFile file, Dialect dialect, String driverName) {
        this.dataSource = dataSource;
        this.file = file;
        this.dialect = dialect;
        this.driverName = driverName;
        this.hikariPool = hikariPool(dataSource);
    }

    private static HikariDataSource hikariPool(DataSource dataSource) {
        try {
            return dataSource.isWrapperFor(HikariDataSource.class) ? dataSource.unwrap(HikariDataSource.class) : null;
        } catch (SQLException e) {
            return null;
        }
    }

    /**
     * Whether the pool holds a connection idle now, so that a borrow need not wait for one: a
     * HikariCP pool's count (another thread may still take it first); false for another data source,
     * whose connections cannot be counted.
     */
    boolean hasIdleConnection() {
        com.zaxxer.hikari.HikariPoolMXBean state = hikariPool == null ? null : hikariPool.getHikariPoolMXBean();
        return state != null && state.getIdleConnections() > 0;
    }

    /** Loads {@code sql/<table>.sql} of the driver. */
    static SqlRunner forTable(DataSource dataSource, dev.skiplock.spi.Driver driver, String table) {
        return new SqlRunner(dataSource, SqlFile.load(driver.resourceRoot() + "/sql/" + table + ".sql"),
                driver.dialect(), driver.name());
    }

    DataSource dataSource() {
        return dataSource;
    }

    /** Runs a query on a pooled connection of its own (autocommit). */
    <T> List<T> query(String name, Map<String, ?> params, RowMapper<T> mapper) {
        return withConnection(connection -> query(connection, name, params, mapper));
    }

    /** Runs an update on a pooled connection of its own (autocommit). */
    int update(String name, Map<String, ?> params) {
        return withConnection(connection -> update(connection, name, params));
    }

    <T> T withConnection(java.util.function.Function<Connection, T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new StoreException("cannot get a " + driverName + " connection: " + e.getMessage(), e);
        }
    }

    /**
     * Runs a read the database's JIT compilation would only slow down ({@link Dialect#disableJit}:
     * the reaper's, planned costly over a large table, finding a few rows): in a transaction with
     * JIT off. Where writes go one at a time (SQLite) on its own instead: a transaction there begins
     * with the write lock ({@code BEGIN IMMEDIATE}), which would hold every writer off for the read,
     * and there is no JIT to turn off.
     */
    <T> List<T> readWithoutJit(String name, Map<String, ?> params, RowMapper<T> mapper) {
        if (dialect.writesOneAtATime()) {
            return query(name, params, mapper);
        }
        return inTransaction(transaction -> {
            try {
                dialect.disableJit(transaction);
            } catch (SQLException e) {
                throw failure(name, e);
            }
            return query(transaction, name, params, mapper);
        });
    }

    /**
     * Runs {@code work} in one transaction on a pooled connection: commits if it returns, rolls back
     * if it throws ({@link TransactionEnds}: the commit goes back to autocommit, so SQLite's driver
     * does not take the write lock again after it).
     */
    <T> T inTransaction(java.util.function.Function<Connection, T> work) {
        return withConnection(connection -> inTransactionOn(connection, work));
    }

    /**
     * As {@link #inTransaction}, in READ COMMITTED whatever the connection's level ({@link
     * ReadCommitted}), put back after: for work whose later statement must see what committed while
     * an earlier one waited for it.
     */
    <T> T inReadCommittedTransaction(java.util.function.Function<Connection, T> work) {
        return withConnection(connection -> {
            try {
                return ReadCommitted.during(connection, () -> inTransactionOn(connection, work));
            } catch (SQLException e) {
                throw failure("transaction", e);
            }
        });
    }

    private <T> T inTransactionOn(Connection connection, java.util.function.Function<Connection, T> work) {
        try {
            TransactionEnds.begin(connection);
            T result;
            try {
                result = work.apply(connection);
            } catch (RuntimeException | Error e) {
                TransactionEnds.rollBack(connection, e);
                throw e;
            }
            TransactionEnds.commit(connection);
            return result;
        } catch (SQLException e) {
            throw failure("transaction", e);
        }
    }

    /**
     * As {@link #inTransaction}, the commit not waiting for the disk where the dialect can say so
     * ({@link Dialect#relaxClaimCommit}): for a claim. If the connection cannot be put back as
     * it was, the call fails, though the transaction may have committed (a claim's caller gives its
     * jobs back), and the pool closes the connection instead of lending it again, so no other write
     * commits unsynced through it. Only a connection of a HikariCP pool (Skiplock's own, Spring
     * Boot's) can be evicted: on any other the claim commits as every write does.
     */
    <T> T inClaimTransaction(java.util.function.Function<Connection, T> work) {
        return inClaimTransaction(work, (connection, result) -> result);
    }

    /**
     * As {@link #inClaimTransaction(java.util.function.Function)}, then {@code afterCommit} on the
     * same connection, back in autocommit with its commit setting put back: a claim's reads that
     * need no lock, without waiting for a second connection of the pool once the jobs are leased.
     */
    <T, R> R inClaimTransaction(java.util.function.Function<Connection, T> work,
            java.util.function.BiFunction<Connection, T, R> afterCommit) {
        return withConnection(connection -> afterCommit.apply(connection, inClaimTransactionOn(connection, work)));
    }

    private <T> T inClaimTransactionOn(Connection connection, java.util.function.Function<Connection, T> work) {
        if (!(hikariPool != null && connection instanceof ProxyConnection)) {
            return inTransactionOn(connection, work);
        }
        Dialect.CommitSync sync;
        try {
            sync = dialect.relaxClaimCommit(connection);
        } catch (SQLException e) {
            // SQLite applies a pragma when it compiles it: it may have taken effect all the same.
            evict(connection, e);
            throw failure("relaxing the claim's commit", e);
        } catch (RuntimeException | Error e) {
            evict(connection, e);
            throw e;
        }
        T result;
        try {
            result = inTransactionOn(connection, work);
        } catch (RuntimeException | Error e) {
            SQLException notRestored = restore(connection, sync);
            if (notRestored != null) {
                e.addSuppressed(notRestored);
            }
            throw e;
        }
        SQLException notRestored = restore(connection, sync);
        if (notRestored != null) {
            throw failure("putting back the claim's commit setting", notRestored);
        }
        return result;
    }

    /** Puts back {@code sync}; unless that went through, evicts the connection from its pool (and returns why, if it can). */
    private SQLException restore(Connection connection, Dialect.CommitSync sync) {
        boolean restored = false;
        SQLException failed = null;
        try {
            sync.restore();
            restored = true;
        } catch (SQLException | RuntimeException e) {
            failed = e instanceof SQLException sqlFailure ? sqlFailure : new SQLException(e);
        } finally {
            if (!restored) {
                evict(connection, failed);
            }
        }
        return failed;
    }

    /** Has the pool close {@code connection} once it is given back; a failure to is added to {@code cause}, if any. */
    private void evict(Connection connection, Throwable cause) {
        try {
            hikariPool.evictConnection(connection);
        } catch (RuntimeException evictFailed) {
            if (cause != null) {
                cause.addSuppressed(evictFailed);
            }
        }
    }

    /**
     * Runs {@code work} on {@code connection} and undoes it, whatever happens: to a savepoint, so a
     * transaction the connection was already in keeps what it did before (a pool that hands out
     * connections in a transaction), and so SQLite's driver does not begin the next transaction,
     * taking the write lock again, as its {@code rollback()} does.
     */
    <T> T rolledBack(Connection connection, java.util.function.Function<Connection, T> work) {
        boolean began = false;
        try {
            if (connection.getAutoCommit()) {
                TransactionEnds.begin(connection);
                began = true;
            }
            java.sql.Savepoint start = connection.setSavepoint();
            T result;
            try {
                result = work.apply(connection);
            } finally {
                connection.rollback(start);
            }
            if (began) {
                TransactionEnds.commit(connection); // ends the transaction, empty once rolled back to its start
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            // Whatever failed (the work, or the rollback to the savepoint), nothing is committed:
            // the transaction this began is rolled back whole (the caller's, if any, is the caller's).
            if (began) {
                TransactionEnds.rollBack(connection, e);
            }
            throw e instanceof SQLException sql ? failure("transaction", sql) : (RuntimeException) e;
        }
    }

    Dialect dialect() {
        return dialect;
    }

    <T> List<T> query(Connection connection, String name, Map<String, ?> params, RowMapper<T> mapper) {
        NamedStatement statement = file.get(name);
        try (PreparedStatement prepared = prepare(connection, statement, params);
                ResultSet rows = prepared.executeQuery()) {
            List<T> result = new ArrayList<>();
            while (rows.next()) {
                result.add(mapper.map(rows));
            }
            return result;
        } catch (SQLException e) {
            throw failure(name, e);
        }
    }

    int update(Connection connection, String name, Map<String, ?> params) {
        NamedStatement statement = file.get(name);
        try (PreparedStatement prepared = prepare(connection, statement, params)) {
            return prepared.executeUpdate();
        } catch (SQLException e) {
            throw failure(name, e);
        }
    }

    /** Whether statement {@code name} of this file takes parameter {@code :parameter}. */
    boolean takes(String name, String parameter) {
        return file.get(name).parameters().contains(parameter);
    }

    /** The SQL text of a statement of this file, as the driver receives it. */
    String text(String name) {
        return file.get(name).jdbcSql();
    }

    /** Streams rows into a table with a {@code COPY}-like statement of this file (see {@link BulkCopy}). */
    long copy(Connection connection, String name, BulkCopy bulkCopy, List<Object[]> rows) {
        try {
            return bulkCopy.copy(connection, file.get(name).jdbcSql(), rows);
        } catch (SQLException e) {
            throw failure(name, e);
        }
    }

    /** True if {@code failure} is a statement rejecting the data it carried (sending it again fails again). */
    boolean isDataError(RuntimeException failure) {
        return failure instanceof StoreException store && dialect.isDataError(store.sqlCause());
    }

    /** Wraps a failure so the message names the statement and the dialect; keeps the SQLException as cause. */
    StoreException failure(String name, SQLException e) {
        return new StoreException(driverName + " statement '" + name + "' failed: " + e.getMessage(), e);
    }

    private PreparedStatement prepare(Connection connection, NamedStatement statement, Map<String, ?> params)
            throws SQLException {
        PreparedStatement prepared = connection.prepareStatement(statement.jdbcSql());
        try {
            if (statement.planPerCall()) {
                dialect.planPerCall(prepared);
            }
            List<String> names = statement.parameters();
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                if (!params.containsKey(name)) {
                    throw new SkiplockException(driverName + " statement '" + statement.name()
                            + "' needs parameter :" + name);
                }
                bind(prepared, i + 1, params.get(name));
            }
            return prepared;
        } catch (SQLException | RuntimeException e) {
            prepared.close();
            throw e;
        }
    }

    private void bind(PreparedStatement prepared, int index, Object value) throws SQLException {
        switch (value) {
            case null -> prepared.setNull(index, Types.NULL);
            case UUID uuid -> dialect.setUuid(prepared, index, uuid);
            case Instant instant -> dialect.setInstant(prepared, index, instant);
            case String text -> prepared.setString(index, text);
            case Integer number -> prepared.setInt(index, number);
            case Long number -> prepared.setLong(index, number);
            case Boolean flag -> prepared.setBoolean(index, flag);
            case SqlArray array -> dialect.setArray(prepared, index, array.elementType(), array.elements());
            default -> throw new IllegalArgumentException("cannot bind " + value.getClass());
        }
    }

    /** A statement failed; names the statement and dialect. Unchecked, under {@link SkiplockException}. */
    static final class StoreException extends SkiplockException {
        StoreException(String message, SQLException cause) {
            super(message, cause);
        }

        SQLException sqlCause() {
            return (SQLException) getCause();
        }
    }
}
