package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code sustained}: jobs offered at {@code --rate} per second for {@code --seconds} (one
 * transaction each, from a separate instance, as {@code latency} does) to a worker of
 * {@code --concurrency}, reported in windows of 10 s: jobs enqueued and finished, pickup p50 / p99
 * of the jobs started in the window, the backlog (queued + running) at its end, and on PostgreSQL
 * the jobs table's dead tuples and the job and event tables' sizes. With {@code --hold-snapshot}
 * (PostgreSQL) a {@code REPEATABLE READ} transaction that has read the jobs table stays open the
 * whole run, as a long analytics query or an {@code idle in transaction} session would: vacuum
 * cannot remove what it may still see.
 */
final class SustainedBench {
    private static final long WINDOW_SECONDS = 10;
    private static final int PRODUCERS = 4;

    private final BenchSettings settings;

    SustainedBench(BenchSettings settings) {
        this.settings = settings;
    }

    /** One window's measures, taken at its end. */
    private record Window(double endSeconds, long enqueued, long finished, double p50, double p99, long backlog,
            long deadTuples, long jobsBytes, long eventsBytes) {
    }

    ObjectNode run(String url) throws Exception {
        Pickups pickups = new Pickups();
        AtomicLong enqueued = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        List<Window> windows = new ArrayList<>();
        long elapsed;
        try (Skiplock worker = BenchSupport.worker(url, settings.concurrency(), settings.poolSize(),
                    id -> pickups.started(id, System.nanoTime()));
                Skiplock producer = BenchSupport.client(url);
                Connection snapshot = settings.holdSnapshot() ? holdSnapshot(producer) : null) {
            BenchSupport.progress("sustained: " + settings.rate() + " jobs/s for " + settings.seconds() + " s"
                    + (snapshot != null ? ", a REPEATABLE READ snapshot held open" : ""));
            AtomicBoolean producing = new AtomicBoolean(true);
            long start = System.nanoTime();
            List<Thread> producers = new ArrayList<>();
            for (int i = 0; i < PRODUCERS; i++) {
                int offset = i;
                producers.add(Thread.ofPlatform().name("bench-producer-" + i).start(
                        () -> produce(producer, start, offset, producing, pickups, enqueued, refused)));
            }
            long lastEnqueued = 0;
            long lastFinished = 0;
            for (long windowEnd : windowEnds(settings.seconds(), WINDOW_SECONDS)) {
                BenchSupport.parkUntil(start + TimeUnit.SECONDS.toNanos(windowEnd));
                double[] window = pickups.drain();
                long nowEnqueued = enqueued.get();
                long nowFinished = worker.metrics().succeeded();
                Stats stats = stats(producer);
                windows.add(new Window((System.nanoTime() - start) / 1e9, nowEnqueued - lastEnqueued,
                        nowFinished - lastFinished, LatencyBench.percentile(window, 50),
                        LatencyBench.percentile(window, 99), stats.backlog(), stats.deadTuples(), stats.jobsBytes(),
                        stats.eventsBytes()));
                lastEnqueued = nowEnqueued;
                lastFinished = nowFinished;
                BenchSupport.progress(String.format("sustained: %.0f s, backlog %d, p99 %.1f ms",
                        windows.getLast().endSeconds(), stats.backlog(), windows.getLast().p99()));
            }
            producing.set(false);
            for (Thread thread : producers) {
                thread.join();
            }
            elapsed = System.nanoTime() - start;
        }
        return result(windows, enqueued.get(), refused.get(), elapsed / 1e9);
    }

    /**
     * The ends of the windows of a run of {@code seconds}, in seconds from its start: every
     * {@code windowSeconds}, and the run's end for a last, shorter window. Before, a run of 15 s
     * ended after its one whole window of 10 s.
     */
    static List<Long> windowEnds(long seconds, long windowSeconds) {
        List<Long> ends = new ArrayList<>();
        for (long end = Math.min(windowSeconds, seconds); ; end = Math.min(end + windowSeconds, seconds)) {
            ends.add(end);
            if (end >= seconds) {
                return ends;
            }
        }
    }

    /**
     * Each job's pickup: its handler's start less the return of its enqueue, whichever of the two
     * is told first (a worker may start a job before its producer's thread goes on from the
     * enqueue; then 0). Before, such a job was left out, the quickest pickups with it.
     */
    static final class Pickups {
        private final Map<UUID, Long> pending = new ConcurrentHashMap<>();
        private final ConcurrentLinkedQueue<Double> taken = new ConcurrentLinkedQueue<>();

        void enqueued(UUID id, long nanos) {
            pair(id, nanos, true);
        }

        void started(UUID id, long nanos) {
            pair(id, nanos, false);
        }

        private void pair(UUID id, long nanos, boolean enqueue) {
            pending.compute(id, (key, other) -> {
                if (other == null) {
                    return nanos; // the first of the two: waits for the other
                }
                long enqueuedAt = enqueue ? nanos : other;
                long startedAt = enqueue ? other : nanos;
                taken.add(Math.max(0, startedAt - enqueuedAt) / 1e6);
                return null;
            });
        }

        /** The pickups (ms) taken since the last drain, sorted. */
        double[] drain() {
            List<Double> window = new ArrayList<>();
            Double value;
            while ((value = taken.poll()) != null) {
                window.add(value);
            }
            double[] sorted = window.stream().mapToDouble(Double::doubleValue).toArray();
            Arrays.sort(sorted);
            return sorted;
        }
    }

    /** One of {@link #PRODUCERS} threads, each offering every PRODUCERS-th job of the schedule. */
    private void produce(Skiplock producer, long start, int offset, AtomicBoolean producing, Pickups pickups,
            AtomicLong enqueued, AtomicLong refused) {
        long intervalNanos = 1_000_000_000L / settings.rate();
        for (long n = offset; producing.get(); n += PRODUCERS) {
            BenchSupport.parkUntil(start + n * intervalNanos);
            if (!producing.get()) {
                return;
            }
            UUID id;
            try {
                id = producer.enqueue(JobRequest.of(BenchSupport.KIND, null)).id();
            } catch (SkiplockException e) {
                refused.incrementAndGet(); // not counted as enqueued: enqueued_per_s shows what the database took
                continue;
            }
            pickups.enqueued(id, System.nanoTime());
            enqueued.incrementAndGet();
        }
    }

    private record Stats(long backlog, long deadTuples, long jobsBytes, long eventsBytes) {
    }

    /** Backlog from the jobs table; dead tuples and sizes on PostgreSQL (-1 on SQLite). */
    private static Stats stats(Skiplock client) throws SQLException {
        try (Connection connection = client.dataSource().getConnection(); Statement statement = connection.createStatement()) {
            long backlog;
            try (ResultSet rows = statement.executeQuery(
                    "SELECT count(*) FROM skiplock_jobs WHERE status IN ('queued', 'running')")) {
                rows.next();
                backlog = rows.getLong(1);
            }
            if (!client.driverName().equals("postgres")) {
                return new Stats(backlog, -1, -1, -1);
            }
            try (ResultSet rows = statement.executeQuery("SELECT (SELECT n_dead_tup FROM pg_stat_user_tables"
                    + " WHERE schemaname = current_schema() AND relname = 'skiplock_jobs'),"
                    + " pg_total_relation_size('skiplock_jobs'), pg_total_relation_size('skiplock_job_events')")) {
                rows.next();
                return new Stats(backlog, rows.getLong(1), rows.getLong(2), rows.getLong(3));
            }
        }
    }

    /**
     * A REPEATABLE READ transaction that read the jobs table, left open on a connection of the
     * producer's pool until the run ends (closing it rolls the transaction back): its snapshot holds
     * back vacuum.
     */
    private static Connection holdSnapshot(Skiplock client) throws SQLException {
        if (!client.driverName().equals("postgres")) {
            throw new IllegalArgumentException("--hold-snapshot: PostgreSQL only");
        }
        Connection connection = client.dataSource().getConnection();
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM skiplock_jobs")) {
            rows.next();
        }
        return connection;
    }

    private ObjectNode result(List<Window> windows, long enqueued, long refused, double seconds) {
        ObjectNode result = BenchSupport.result(settings);
        ArrayNode list = result.putArray("windows");
        for (Window window : windows) {
            ObjectNode node = list.addObject();
            node.put("end_s", LatencyBench.round(window.endSeconds()));
            node.put("enqueued", window.enqueued());
            node.put("finished", window.finished());
            node.put("p50_ms", LatencyBench.round(window.p50()));
            node.put("p99_ms", LatencyBench.round(window.p99()));
            node.put("backlog", window.backlog());
            node.put("dead_tuples", window.deadTuples());
            node.put("jobs_bytes", window.jobsBytes());
            node.put("events_bytes", window.eventsBytes());
        }
        Window last = windows.getLast();
        result.put("ok", refused == 0 && enqueued > 0); // every offered job was taken
        result.put("offered_per_s", settings.rate());
        result.put("enqueued_per_s", Math.round(enqueued / seconds));
        result.put("enqueue_errors", refused);
        result.put("hold_snapshot", settings.holdSnapshot());
        result.put("backlog_end", last.backlog());
        result.put("last_window_p99_ms", LatencyBench.round(last.p99()));
        return result;
    }
}
