package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockMetrics;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code drain}: N jobs are enqueued first (untimed); the clock runs from the first handler start
 * until the worker has durably finished all N (its completer counts a job only once the fenced
 * statement committed), and the database count is checked afterwards. With {@code --history H},
 * H jobs are enqueued and drained first so the table already holds H finished rows.
 */
final class DrainBench {
    private static final long TIMEOUT_SECONDS = 1800;
    /**
     * Finished jobs as the engine leaves them, with UUIDv7 ids in time order over the last week: the
     * enqueue, start and success events are read from the row (seqs from the events' sequence, three
     * per job above :base), a failure's event is a row (POSTGRES_HISTORY_EVENTS); the statement
     * also appends the history's count deltas.
     */
    private static final String POSTGRES_HISTORY = """
            WITH inserted AS (
            INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, priority, status, attempt,
                max_attempts, available_at, requested_at, started_at, finished_at, timeout_seconds, result, last_error,
                requested_seq, started_seq, finished_seq)
            SELECT CAST(lpad(to_hex(ms), 12, '0') || '7' || lpad(to_hex(i % 4096), 3, '0') || '8'
                        || lpad(to_hex(i % 4096), 3, '0') || lpad(to_hex(i), 12, '0') AS uuid),
                   'default', 'default', 'noop', 'null', '{}', 0,
                   CASE WHEN i % 1000 = 0 THEN 'failed' ELSE 'succeeded' END, 1, 3, t, t, t,
                   t + interval '5 ms', NULL, 'null', CASE WHEN i % 1000 = 0 THEN 'failed' END,
                   :base + 3 * i, :base + 3 * i + 1, CASE WHEN i % 1000 <> 0 THEN :base + 3 * i + 2 END
            FROM (SELECT i, now() - interval '7 days' + i * (interval '7 days' / :history) AS t,
                         CAST(extract(epoch FROM now() - interval '7 days' + i * (interval '7 days' / :history)) * 1000
                              AS bigint) AS ms
                  FROM generate_series(1, :history) AS i) history
            RETURNING tenant, queue, status
            )
            -- counted as an enqueue's statement counts its jobs (migration 0015)
            INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
            SELECT tenant, queue, status, count(*) FROM inserted GROUP BY tenant, queue, status
            """;
    private static final String POSTGRES_HISTORY_EVENTS = """
            INSERT INTO skiplock_job_events (seq, job_id, ts, attempt, type, status, message) OVERRIDING SYSTEM VALUE
            SELECT started_seq + 1, id, finished_at, 1, 'status', status, last_error FROM skiplock_jobs
            WHERE status = 'failed' AND started_seq BETWEEN :base AND :base + 3 * :history + 2
            """;

    private final BenchSettings settings;

    DrainBench(BenchSettings settings) {
        this.settings = settings;
    }

    ObjectNode run(String url) {
        try (Skiplock client = BenchSupport.client(url)) {
            if (settings.history() > 0) {
                fillHistory(client, url);
            }
            long succeededBefore = BenchSupport.count(client, JobStatus.SUCCEEDED);
            BenchSupport.progress("drain: enqueueing " + settings.jobs() + " jobs (untimed)");
            BenchSupport.enqueueInBatches(client, settings.jobs(), settings.batch());
            if (settings.analyze()) {
                analyze(client);
            }
            AtomicLong firstStart = new AtomicLong();
            long end;
            SkiplockMetrics metrics;
            long drainRss;
            BenchSupport.progress("drain: working off " + settings.jobs() + " jobs (timed)");
            try (BenchSupport.RssSampler rss = new BenchSupport.RssSampler()) {
                Skiplock worker = BenchSupport.worker(url, settings.concurrency(), settings.poolSize(),
                        id -> firstStart.compareAndSet(0, System.nanoTime()));
                try {
                    end = BenchSupport.awaitSucceeded(worker, settings.jobs(), TIMEOUT_SECONDS);
                    metrics = worker.metrics();
                } finally {
                    worker.close();
                }
                rss.close();
                drainRss = rss.maxMib();
            }
            double seconds = (end - firstStart.get()) / 1e9;
            long succeeded = BenchSupport.count(client, JobStatus.SUCCEEDED) - succeededBefore;
            ObjectNode result = BenchSupport.result(settings);
            result.put("ok", succeeded == settings.jobs());
            result.put("jobs_per_s", Math.round(settings.jobs() / seconds));
            result.put("seconds", seconds);
            // While the worker drains (the target's measure); the whole run's peak includes the
            // untimed enqueue of all N jobs by the producer in this same JVM.
            result.put("rss_mib", drainRss);
            result.put("peak_rss_mib", BenchSupport.peakRssMib());
            result.put("mean_claim_batch", metrics.claimed() / Math.max(1, metrics.claimStatements()));
            result.put("mean_completion_batch", metrics.succeeded() / Math.max(1, metrics.completionBatches()));
            return result;
        }
    }

    /**
     * Gives the jobs table statistics, as autovacuum keeps those of a live queue: statements are
     * planned from them (PostgreSQL once planned every claim again on an analyzed table; 0016).
     */
    private static void analyze(Skiplock client) {
        BenchSupport.progress("drain: ANALYZE of the jobs table (untimed)");
        maintain(client, "ANALYZE skiplock_jobs", "ANALYZE of the jobs table");
    }

    /** Runs one untimed maintenance statement on {@code client}'s pool; {@code what} names it if it fails. */
    private static void maintain(Skiplock client, String sql, String what) {
        try (java.sql.Connection connection = client.dataSource().getConnection();
                java.sql.Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (java.sql.SQLException e) {
            throw new dev.skiplock.SkiplockException(what + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * SQLite: the history is enqueued and drained. PostgreSQL: written by SQL as the engine leaves
     * it (a succeeded job, one in a thousand failed, with its three status events, spread over the
     * last week), since draining millions through one queue first is slow for a reason of its own:
     * the claimable index's head fills with the entries of claimed jobs faster than autovacuum
     * removes them (measured: a 7.7-million backlog fell to ~1,000 claims/s within minutes).
     */
    private void fillHistory(Skiplock client, String url) {
        BenchSupport.progress("drain: building a history of " + settings.history() + " finished jobs (untimed)");
        if (client.driverName().equals("postgres")) {
            try (java.sql.Connection connection = client.dataSource().getConnection();
                    java.sql.Statement statement = connection.createStatement()) {
                long base;
                try (java.sql.ResultSet row = statement.executeQuery("SELECT nextval('skiplock_job_events_seq_seq')")) {
                    row.next();
                    base = row.getLong(1);
                }
                String history = Integer.toString(settings.history());
                statement.execute(POSTGRES_HISTORY.replace(":history", history).replace(":base", Long.toString(base)));
                statement.execute(POSTGRES_HISTORY_EVENTS.replace(":history", history).replace(":base", Long.toString(base)));
                statement.execute("SELECT setval('skiplock_job_events_seq_seq', " + base + " + 3 * " + history + " + 2)");
            } catch (java.sql.SQLException e) {
                throw new dev.skiplock.SkiplockException("writing the history failed: " + e.getMessage(), e);
            }
        } else {
            BenchSupport.enqueueInBatches(client, settings.history(), settings.batch());
            try (Skiplock worker = BenchSupport.worker(url, settings.concurrency(), settings.poolSize(), id -> { })) {
                BenchSupport.awaitSucceeded(worker, settings.history(), TIMEOUT_SECONDS);
            }
        }
        if (client.driverName().equals("postgres")) {
            // A history kept for days has been vacuumed by autovacuum long since (migration 0004);
            // one built a second ago has not. VACUUM gives the measured drain that steady state.
            BenchSupport.progress("drain: VACUUM ANALYZE of the history (untimed)");
            maintain(client, "VACUUM (ANALYZE) skiplock_jobs", "VACUUM of the history");
        }
    }
}
