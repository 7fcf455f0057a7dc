package dev.skiplock.sqlite;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.spi.Dialect;
import dev.skiplock.spi.Driver;
import dev.skiplock.spi.Notifier;
import java.util.List;
import javax.sql.DataSource;

/**
 * SQLite: one file, zero set-up, one host (several processes may share the file). The pool it
 * creates puts every connection in WAL mode with a busy timeout and {@code BEGIN IMMEDIATE}
 * transactions: a deferred transaction that reads and then writes fails with SQLITE_BUSY under
 * concurrency (measured here: 3,465 of 4,000 claims failed), an immediate one waits its turn.
 * A data source you pass yourself needs the same settings.
 */
public final class SqliteDriver implements Driver {
    /** Writers take turns on one lock, so a few connections are enough; readers in WAL run alongside. */
    static final int POOL_SIZE = 4;
    static final String SETTINGS = "journal_mode=WAL&busy_timeout=10000&synchronous=NORMAL"
            + "&transaction_mode=IMMEDIATE&foreign_keys=true&recursive_triggers=true";

    private static final SqliteDialect DIALECT = new SqliteDialect();

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:sqlite:");
    }

    @Override
    public boolean acceptsProduct(String databaseProductName) {
        return "SQLite".equalsIgnoreCase(databaseProductName);
    }

    @Override
    public DataSource createDataSource(String jdbcUrl) {
        if (jdbcUrl.contains(":memory:") || jdbcUrl.equals("jdbc:sqlite:")) {
            throw new IllegalArgumentException("url: an in-memory SQLite database is not durable and not shared "
                    + "between connections; give a file, e.g. jdbc:sqlite:./skiplock.db");
        }
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + SETTINGS);
        hikari.setMaximumPoolSize(POOL_SIZE);
        hikari.setPoolName("skiplock-sqlite");
        return new HikariDataSource(hikari);
    }

    @Override
    public String resourceRoot() {
        return "dev/skiplock/sqlite";
    }

    @Override
    public List<String> migrations() {
        return List.of("0001_jobs", "0002_events", "0003_dependencies", "0004_hot_path",
                "0005_status_events_in_statements", "0007_cron_slots");
    }

    @Override
    public Dialect dialect() {
        return DIALECT;
    }

    @Override
    public Notifier notifier(DataSource dataSource) {
        return new SqliteNotifier(dataSource);
    }
}
