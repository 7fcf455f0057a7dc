package dev.skiplock.sqlite;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.spi.Dialect;
import dev.skiplock.spi.Driver;
import dev.skiplock.spi.Notifier;
import dev.skiplock.spi.PoolSettings;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * SQLite: one file, zero set-up, one host (several processes may share the file). The pool it
 * creates puts every connection in WAL mode with {@code BEGIN IMMEDIATE} transactions: a deferred
 * transaction that reads and then writes fails with SQLITE_BUSY under concurrency (measured here:
 * 3,465 of 4,000 claims failed), an immediate one waits its turn, trying again after pauses of
 * 0.05 ms growing with the wait up to 1 ms ({@link PromptBusyHandler}), or as soon as another
 * connection of the pool released the lock ({@link WriteLockRelease}).
 *
 * <p>Durability: {@code synchronous=FULL} by default, so a commit Skiplock acknowledged (an
 * enqueue, an outcome) survives power loss; in WAL mode {@code NORMAL} may lose the last commits
 * then (never on a process crash, and the file stays consistent). A URL may choose {@code NORMAL}
 * for every write with {@code ?synchronous=NORMAL} (or choose {@code EXTRA}); other values are
 * rejected. Whatever the URL chose, a claim on this pool's connections commits at {@code NORMAL}
 * ({@link SqliteDialect#relaxClaimCommit}), as PostgreSQL's claim does not wait for its WAL flush.
 * A data source you pass yourself needs the same settings.
 */
public final class SqliteDriver implements Driver {
    /** Writers take turns on one lock, so a few connections are enough; readers in WAL run alongside. */
    static final int POOL_SIZE = 4;
    /** How long a writer waits for the write lock before it fails (SQLITE_BUSY). */
    static final int BUSY_TIMEOUT_MILLIS = 10_000;
    /**
     * The size the WAL file is cut back to once a checkpoint has emptied it: without a limit it kept
     * the size of its largest burst (a bulk enqueue, a drain, a retention run) for good.
     */
    static final long WAL_SIZE_LIMIT_BYTES = 64L * 1024 * 1024;
    /** The pool's connections wait with a {@link PromptBusyHandler}; the pragma covers a connection before it is set. */
    static final String SETTINGS = "journal_mode=WAL&busy_timeout=" + BUSY_TIMEOUT_MILLIS
            + "&transaction_mode=IMMEDIATE&foreign_keys=true&recursive_triggers=true"
            + "&journal_size_limit=" + WAL_SIZE_LIMIT_BYTES;
    /**
     * For the pool Skiplock creates only, whose connections keep their statements: without it
     * sqlite-jdbc runs {@code SELECT last_insert_rowid()} on a new statement after every INSERT and
     * holds that on the kept statement. Skiplock reads what it inserts with RETURNING.
     */
    static final String OWN_POOL_SETTINGS = "jdbc.get_generated_keys=false";
    /** {@code PRAGMA synchronous} unless the URL says otherwise: acknowledged commits survive power loss. */
    static final String DEFAULT_SYNCHRONOUS = "FULL";
    private static final List<String> SYNCHRONOUS_VALUES = List.of("FULL", "EXTRA", "NORMAL");

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

    /**
     * Whether {@code jdbcUrl} names a database in memory: {@code :memory:}, no file at all, or a URI
     * filename's {@code mode=memory} or {@code vfs=memdb} (the driver opens every name as a URI).
     */
    static boolean inMemory(String jdbcUrl) {
        String url = jdbcUrl.toLowerCase(java.util.Locale.ROOT);
        return url.contains(":memory:") || url.equals("jdbc:sqlite:")
                || url.matches(".*[?&](mode=memory|vfs=memdb)(&.*)?");
    }

    @Override
    public DataSource createDataSource(String jdbcUrl, PoolSettings pool) {
        if (inMemory(jdbcUrl)) {
            throw new IllegalArgumentException("url: an in-memory SQLite database is not durable and not shared "
                    + "between connections; give a file, e.g. jdbc:sqlite:./skiplock.db");
        }
        HikariConfig hikari = new HikariConfig();
        // Our settings come last: the driver takes the last value of a repeated parameter.
        hikari.setDataSource(new SqliteConnections(jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + SETTINGS
                + "&" + OWN_POOL_SETTINGS + "&synchronous=" + synchronous(jdbcUrl), BUSY_TIMEOUT_MILLIS));
        hikari.setMaximumPoolSize(pool.maxPoolSizeOr(POOL_SIZE));
        hikari.setMinimumIdle(pool.minIdleOf(hikari.getMaximumPoolSize()));
        if (pool.user() != null) {
            hikari.setUsername(pool.user());
        }
        if (pool.password() != null) {
            hikari.setPassword(pool.password());
        }
        hikari.setPoolName("skiplock-sqlite");
        return new HikariDataSource(hikari);
    }

    /** The URL's {@code synchronous} parameter, checked, or {@value #DEFAULT_SYNCHRONOUS}. */
    static String synchronous(String jdbcUrl) {
        int query = jdbcUrl.indexOf('?');
        String chosen = null;
        if (query >= 0) {
            for (String parameter : jdbcUrl.substring(query + 1).split("&")) {
                int equals = parameter.indexOf('=');
                String name = equals < 0 ? parameter : parameter.substring(0, equals);
                if (name.equalsIgnoreCase("synchronous")) {
                    chosen = equals < 0 ? "" : parameter.substring(equals + 1);
                }
            }
        }
        if (chosen == null) {
            return DEFAULT_SYNCHRONOUS;
        }
        String value = chosen.toUpperCase(Locale.ROOT);
        if (!SYNCHRONOUS_VALUES.contains(value)) {
            throw new IllegalArgumentException("synchronous: must be FULL (the default), EXTRA or NORMAL "
                    + "(faster, may lose the last commits on power loss), got '" + chosen + "'");
        }
        return value;
    }

    @Override
    public String resourceRoot() {
        return "dev/skiplock/sqlite";
    }

    @Override
    public List<String> migrations() {
        return List.of("0001_jobs", "0002_events", "0003_dependencies", "0004_hot_path",
                "0005_status_events_in_statements", "0006_lease_tokens", "0007_cron_slots",
                "0008_dependency_rows_deleted", "0009_traceparent_and_trigger_names", "0010_steps_and_signals", "0011_job_counts",
                "0012_status_events_from_job_rows", "0013_dependency_release_per_statement",
                "0014_log_lines_stored_once", "0015_enqueues_count_their_jobs", "0016_claim_planned_once",
                "0017_hot_path_bookkept_by_statements",
                "0018_hot_path_events_from_job_rows", "0019_claim_passes_over_delayed_jobs",
                "0020_unsuccessful_jobs_indexed", "0021_throughput_indexed_by_minute", "0022_job_counts_folded_apart",
                "0023_job_counts_all_tenants", "0024_jobs_listed_by_queue_and_kind", "0025_jobs_listed_by_tenant",
                "0026_maintenance_turns", "0027_dependents_keep_their_run_at",
                "0028_finished_token", "0029_event_turn_key", "0030_dependency_outcomes_outlive_their_jobs",
                "0031_workers_keep_their_lease", "0032_snoozes_counted_apart", "0033_cron_slots_pruned_through", "0034_claim_counts_its_jobs");
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
