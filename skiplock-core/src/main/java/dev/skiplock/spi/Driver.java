package dev.skiplock.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A database Skiplock can run on. Drivers are found with {@link java.util.ServiceLoader}; each ships
 * its own complete SQL as resources under {@link #resourceRoot()}:
 * {@code sql/<table>.sql} (named statements, {@code -- name: x}) and {@code migrations/NNNN_name.sql}.
 */
public interface Driver {
    /** Short name, e.g. {@code postgres}; used in error messages. */
    String name();

    /** True if this driver serves the JDBC URL (e.g. {@code jdbc:sqlite:…}). */
    boolean acceptsUrl(String jdbcUrl);

    /**
     * The JDBC URL for a URL this driver understands: a JDBC URL it accepts as is, or a form of its
     * own (PostgreSQL: {@code postgresql://user@host/db}); empty for a URL of another database.
     *
     * @throws IllegalArgumentException if the URL is of this driver's form but malformed (the message names no field)
     */
    default Optional<String> jdbcUrl(String url) {
        return acceptsUrl(url) ? Optional.of(url) : Optional.empty();
    }

    /** True if this driver serves a database reporting this {@code DatabaseMetaData} product name. */
    boolean acceptsProduct(String databaseProductName);

    /**
     * A pooled data source for the URL, with the settings this database needs (e.g. WAL for SQLite)
     * and the application's {@code pool} settings (credentials, size).
     */
    DataSource createDataSource(String jdbcUrl, PoolSettings pool);

    /** Classpath folder holding {@code sql/} and {@code migrations/}, e.g. {@code dev/skiplock/postgres}. */
    String resourceRoot();

    /** Migration file names without {@code .sql}, in order, e.g. {@code 0001_jobs}; same numbers in every driver. */
    List<String> migrations();

    /** How values that JDBC does not map the same way everywhere are bound and read. */
    Dialect dialect();

    /**
     * Throws a {@link dev.skiplock.SkiplockException} naming what to change if Skiplock cannot work on
     * the database as {@code connection} sees it. Asked once by each build of an instance, a client
     * or a migration, before anything else is read; nothing by default.
     */
    default void requireUsable(Connection connection) throws SQLException {
    }

    /** Creates this driver's wake-up channel, or returns {@link Notifier#NONE} to rely on in-process signals and polling. */
    default Notifier notifier(DataSource dataSource) {
        return Notifier.NONE;
    }

    /**
     * The driver's bulk writer, if it has one; then its {@code sql/bulk.sql} defines {@code bulk_clock}
     * (the transaction's clock and one event seq per job) and {@code copy_jobs} (whose rows carry each
     * job's first status event as {@code requested_seq}), and large enqueue batches go through it.
     */
    default Optional<BulkCopy> bulkCopy() {
        return Optional.empty();
    }
}
