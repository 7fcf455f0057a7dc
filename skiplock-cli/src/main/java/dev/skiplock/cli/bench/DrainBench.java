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

    private final BenchSettings settings;

    DrainBench(BenchSettings settings) {
        this.settings = settings;
    }

    ObjectNode run(String url) {
        try (Skiplock client = BenchSupport.client(url)) {
            if (settings.history() > 0) {
                fillHistory(client, url);
            }
            BenchSupport.progress("drain: enqueueing " + settings.jobs() + " jobs (untimed)");
            BenchSupport.enqueueInBatches(client, settings.jobs(), settings.batch());
            AtomicLong firstStart = new AtomicLong();
            long end;
            SkiplockMetrics metrics;
            long drainRss;
            BenchSupport.progress("drain: working off " + settings.jobs() + " jobs (timed)");
            try (BenchSupport.RssSampler rss = new BenchSupport.RssSampler()) {
                Skiplock worker = BenchSupport.worker(url, settings.concurrency(),
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
            long succeeded = BenchSupport.count(client, JobStatus.SUCCEEDED) - settings.history();
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

    private void fillHistory(Skiplock client, String url) {
        BenchSupport.progress("drain: building a history of " + settings.history() + " finished jobs (untimed)");
        BenchSupport.enqueueInBatches(client, settings.history(), settings.batch());
        try (Skiplock worker = BenchSupport.worker(url, settings.concurrency(), id -> { })) {
            BenchSupport.awaitSucceeded(worker, settings.history(), TIMEOUT_SECONDS);
        }
        if (client.driverName().equals("postgres")) {
            // A history kept for days has been vacuumed by autovacuum long since (migration 0004);
            // one built a second ago has not. VACUUM gives the measured drain that steady state.
            BenchSupport.progress("drain: VACUUM ANALYZE of the history (untimed)");
            try (java.sql.Connection connection = client.dataSource().getConnection();
                    java.sql.Statement statement = connection.createStatement()) {
                statement.execute("VACUUM (ANALYZE) skiplock_jobs");
            } catch (java.sql.SQLException e) {
                throw new dev.skiplock.SkiplockException("VACUUM of the history failed: " + e.getMessage(), e);
            }
        }
    }
}
