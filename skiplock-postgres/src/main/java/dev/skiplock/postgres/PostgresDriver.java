package dev.skiplock.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.SkiplockException;
import dev.skiplock.spi.BulkCopy;
import dev.skiplock.spi.Dialect;
import dev.skiplock.spi.Driver;
import dev.skiplock.spi.Notifier;
import dev.skiplock.spi.PoolSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * PostgreSQL: many worker processes on many hosts coordinate through one database. Tables live in
 * the connection's current schema (set {@code currentSchema} in the URL to choose one).
 */
public final class PostgresDriver implements Driver {
    /** Pool size when Skiplock creates the pool: one LISTEN connection, the rest shared by claimers, completer, lease keeper and enqueuers. */
    static final int POOL_SIZE = 11;

    /**
     * The longest schema name, in bytes: every notification goes to channel {@code skiplock:<schema>},
     * and PostgreSQL refuses a channel over 63 bytes (its identifiers' limit), so with a longer name
     * every enqueue, cancel and completion that notifies failed.
     */
    static final int MAX_SCHEMA_BYTES = 63 - "skiplock:".length();

    private static final PostgresDialect DIALECT = new PostgresDialect();
    private static final PostgresBulkCopy BULK_COPY = new PostgresBulkCopy();

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    public java.util.Optional<String> jdbcUrl(String url) {
        return PostgresUrl.toJdbc(url);
    }

    @Override
    public boolean acceptsProduct(String databaseProductName) {
        return "PostgreSQL".equalsIgnoreCase(databaseProductName);
    }

    @Override
    public DataSource createDataSource(String jdbcUrl, PoolSettings pool) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setMaximumPoolSize(pool.maxPoolSizeOr(POOL_SIZE));
        hikari.setMinimumIdle(pool.minIdleOf(hikari.getMaximumPoolSize()));
        if (pool.user() != null) {
            hikari.setUsername(pool.user());
        }
        if (pool.password() != null) {
            hikari.setPassword(pool.password());
        }
        hikari.setPoolName("skiplock-postgres");
        return new HikariDataSource(hikari);
    }

    @Override
    public void requireUsable(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT current_schema(), octet_length(current_schema())")) {
            if (row.next() && row.getString(1) != null && row.getInt(2) > MAX_SCHEMA_BYTES) {
                throw new SkiplockException("the schema '" + row.getString(1) + "' is named in " + row.getInt(2)
                        + " bytes: Skiplock's notification channel (skiplock:<schema>) fits PostgreSQL's 63-byte"
                        + " names only with a schema named in at most " + MAX_SCHEMA_BYTES + " bytes; choose a"
                        + " shorter one (currentSchema in the URL)");
            }
        }
    }

    @Override
    public String resourceRoot() {
        return "dev/skiplock/postgres";
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
        return new PostgresNotifier(dataSource);
    }

    @Override
    public Optional<BulkCopy> bulkCopy() {
        return Optional.of(BULK_COPY);
    }
}
