/*
 * RawQueue: the "minimal raw JDBC queue" (SKIP LOCKED claim of 100, batch DELETE, NOTIFY) that the
 * performance targets of the fast path (issue #3) are relative to: the least a Java process can do
 * on PostgreSQL for the same workloads, with no lease, no fencing, no retry and no event log.
 * scripts/bench-all runs it beside `skiplock bench`, so both are measured on the same machine in
 * the same session (the machine is shared and its speed varies from day to day). Usage (via scripts/raw-baseline/run, which supplies pgjdbc):
 *
 *   java -cp postgresql.jar RawQueue.java MODE [--n N] [--db jdbc-url]
 *   MODE = enqueue-single (N 20000) | enqueue-batch (N 50000, calls of 1000) | drain (N 50000) | latency (N 500 at 50/s)
 *
 * Prints one JSON line on stdout. Works in a fresh schema raw_bench_<random>, dropped at the end.
 * Every transaction uses the default synchronous_commit (on): this is the plain baseline, with no
 * "SET LOCAL synchronous_commit = off" on claims.
 */
import java.sql.*;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;

public class RawQueue {
    static final String QUEUE = "default", PAYLOAD = "{}";
    static final int CLAIM = 100, BATCH = 1000, WORKERS = 4, RATE = 50, WARM_UP = 50;

    static String url, schema, table;
    static volatile boolean created;
    static final AtomicBoolean dropped = new AtomicBoolean();

    public static void main(String[] args) throws Exception {
        if (args.length == 0) throw new IllegalArgumentException("usage: RawQueue MODE [--n N] [--db jdbc-url]");
        String mode = args[0];
        url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
        int n = switch (mode) {
            case "enqueue-single" -> 20000;
            case "enqueue-batch", "drain" -> 50000;
            case "latency" -> 500;
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        };
        for (int i = 1; i < args.length; i += 2) {
            switch (args[i]) {
                case "--n" -> n = Integer.parseInt(args[i + 1]);
                case "--db" -> url = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        schema = "raw_bench_" + Long.toHexString(new Random().nextLong() >>> 16);
        table = schema + ".jobs";
        Runtime.getRuntime().addShutdownHook(new Thread(RawQueue::dropSchema)); // also on Ctrl-C
        try {
            exec("CREATE SCHEMA " + schema);
            created = true;
            exec("CREATE TABLE " + table + " (id bigserial PRIMARY KEY, queue text NOT NULL, payload jsonb,"
                    + " run_at timestamptz NOT NULL DEFAULT now())",
                 "CREATE INDEX ON " + table + " (queue, id)");
            String json = switch (mode) {
                case "enqueue-single", "enqueue-batch" -> enqueueBench(mode, n);
                case "drain" -> drainBench(n);
                default -> latencyBench(n);
            };
            System.out.println("{\"system\":\"raw-jdbc\",\"mode\":\"" + mode + "\",\"n\":" + n + "," + json + "}");
        } finally {
            dropSchema();
        }
    }

    // ---- producer ----

    /** One job, one transaction (autocommit, one statement): INSERT plus NOTIFY. Returns the id. */
    static long enqueue(PreparedStatement insert) throws SQLException {
        try (ResultSet rs = insert.executeQuery()) { rs.next(); return rs.getLong(1); }
    }

    static PreparedStatement prepareSingle(Connection c) throws SQLException {
        PreparedStatement ps = c.prepareStatement("WITH j AS (INSERT INTO " + table + " (queue, payload)"
                + " VALUES (?, ?::jsonb) RETURNING id) SELECT id, pg_notify('raw', ?) FROM j");
        ps.setString(1, QUEUE); ps.setString(2, PAYLOAD); ps.setString(3, QUEUE);
        return ps;
    }

    /** Enqueues n jobs in calls of BATCH, each one transaction: INSERT ... FROM unnest(array) plus NOTIFY. */
    static void enqueueBatches(Connection c, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("WITH j AS (INSERT INTO " + table + " (queue, payload)"
                + " SELECT ?, p::jsonb FROM unnest(?::text[]) p RETURNING id)"
                + " SELECT count(*), pg_notify('raw', ?) FROM j")) {
            for (int done = 0; done < n; done += BATCH) {
                String[] payloads = new String[Math.min(BATCH, n - done)];
                Arrays.fill(payloads, PAYLOAD);
                ps.setString(1, QUEUE); ps.setArray(2, c.createArrayOf("text", payloads)); ps.setString(3, QUEUE);
                try (ResultSet rs = ps.executeQuery()) { rs.next(); }
            }
        }
    }

    static String enqueueBench(String mode, int n) throws SQLException {
        try (Connection c = connect()) {
            long start = System.nanoTime();
            if (mode.equals("enqueue-single")) {
                try (PreparedStatement ps = prepareSingle(c)) { for (int i = 0; i < n; i++) enqueue(ps); }
            } else {
                enqueueBatches(c, n);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return "\"ok\":" + (count(c) == n) + ",\"jobs_per_s\":" + Math.round(n / seconds) + ",\"seconds\":" + seconds;
        }
    }

    // ---- worker: one LISTEN connection + WORKERS claim threads, each with its own connection ----

    interface Handler { void handle(long id); }

    static final class Worker implements AutoCloseable {
        final Object lock = new Object();
        long wakeups;                       // bumped on every notification; guarded by lock
        volatile boolean stopping;
        final AtomicLong finished = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        final Connection listen;

        Worker(Handler handler) throws SQLException {
            listen = connect();
            try (Statement s = listen.createStatement()) { s.execute("LISTEN raw"); }
            threads.add(Thread.ofPlatform().daemon().name("raw-listen").start(this::listenLoop));
            for (int i = 0; i < WORKERS; i++) {
                threads.add(Thread.ofPlatform().daemon().name("raw-worker-" + i).start(() -> claimLoop(handler)));
            }
        }

        void listenLoop() {
            PGConnection pg;
            try { pg = listen.unwrap(PGConnection.class); } catch (SQLException e) { throw new RuntimeException(e); }
            while (!stopping) {
                try {
                    var notes = pg.getNotifications(1000); // blocks up to 1 s for a notification
                    if (notes != null && notes.length > 0) {
                        synchronized (lock) { wakeups++; lock.notifyAll(); }
                    }
                } catch (SQLException e) {
                    if (!stopping) e.printStackTrace();
                    return;
                }
            }
        }

        /** Claim up to CLAIM ids, run the handlers, batch DELETE, commit: one transaction per batch. */
        void claimLoop(Handler handler) {
            try (Connection c = connect();
                 PreparedStatement claim = c.prepareStatement("SELECT id FROM " + table + " WHERE queue = ?"
                         + " AND run_at <= now() ORDER BY id LIMIT " + CLAIM + " FOR UPDATE SKIP LOCKED");
                 PreparedStatement delete = c.prepareStatement("DELETE FROM " + table + " WHERE id = ANY(?)")) {
                c.setAutoCommit(false);
                claim.setString(1, QUEUE);
                while (!stopping) {
                    long seen;
                    synchronized (lock) { seen = wakeups; }
                    List<Long> ids = new ArrayList<>(CLAIM);
                    try (ResultSet rs = claim.executeQuery()) { while (rs.next()) ids.add(rs.getLong(1)); }
                    if (ids.isEmpty()) {
                        c.commit();
                        synchronized (lock) { // wait for a notification, or poll again after 1 s
                            if (wakeups == seen && !stopping) lock.wait(1000);
                        }
                        continue;
                    }
                    for (long id : ids) handler.handle(id);
                    delete.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                    delete.executeUpdate();
                    c.commit();
                    finished.addAndGet(ids.size());
                }
            } catch (Exception e) {
                if (!stopping) e.printStackTrace();
            }
        }

        /** Waits until at least n jobs are finished (deleted and committed); returns System.nanoTime() then. */
        long awaitFinished(long n, long timeoutSeconds) throws InterruptedException {
            long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
            while (finished.get() < n) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("timed out: " + finished.get() + "/" + n);
                LockSupport.parkNanos(50_000);
            }
            return System.nanoTime();
        }

        @Override public void close() throws Exception {
            stopping = true;
            synchronized (lock) { lock.notifyAll(); }
            for (Thread t : threads.subList(1, threads.size())) t.join(5000);
            listen.close();
        }
    }

    /** N jobs enqueued first (untimed); clock from the first handler start until all N are deleted and committed. */
    static String drainBench(int n) throws Exception {
        try (Connection c = connect()) {
            enqueueBatches(c, n);
            AtomicLong firstStart = new AtomicLong();
            long end;
            try (Worker w = new Worker(id -> firstStart.compareAndSet(0, System.nanoTime()))) {
                end = w.awaitFinished(n, 1800);
            }
            double seconds = (end - firstStart.get()) / 1e9;
            return "\"ok\":" + (count(c) == 0) + ",\"jobs_per_s\":" + Math.round(n / seconds) + ",\"seconds\":" + seconds
                    + ",\"peak_rss_mib\":" + peakRssMib();
        }
    }

    /**
     * An idle worker; a producer (own connection, same JVM) enqueues one job per transaction at RATE/s.
     * Latency = handler start - enqueue commit returned. WARM_UP untimed jobs first, as `skiplock bench`.
     */
    static String latencyBench(int n) throws Exception {
        Map<Long, Long> started = new ConcurrentHashMap<>(), enqueued = new ConcurrentHashMap<>();
        try (Worker w = new Worker(id -> started.putIfAbsent(id, System.nanoTime()));
             Connection c = connect(); PreparedStatement ps = prepareSingle(c)) {
            Thread.sleep(200); // let the worker go idle
            produce(ps, WARM_UP, new HashMap<>());
            w.awaitFinished(WARM_UP, 60);
            produce(ps, n, enqueued);
            w.awaitFinished(WARM_UP + n, 600);
        }
        double[] ms = enqueued.entrySet().stream()
                .mapToDouble(e -> Math.max(0, started.get(e.getKey()) - e.getValue()) / 1e6).sorted().toArray();
        return "\"ok\":" + (ms.length == n) + ",\"p50_ms\":" + pct(ms, 50) + ",\"p95_ms\":" + pct(ms, 95)
                + ",\"p99_ms\":" + pct(ms, 99) + ",\"max_ms\":" + round(ms[ms.length - 1]);
    }

    static void produce(PreparedStatement ps, int n, Map<Long, Long> enqueued) throws SQLException {
        long interval = 1_000_000_000L / RATE, next = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long wait = next - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait);
            long id = enqueue(ps);
            enqueued.put(id, System.nanoTime());
            next += interval;
        }
    }

    // ---- helpers ----

    static Connection connect() throws SQLException { return DriverManager.getConnection(url); }

    static void exec(String... sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) { for (String q : sql) s.execute(q); }
    }

    static long count(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next(); return rs.getLong(1);
        }
    }

    static void dropSchema() {
        if (!created || !dropped.compareAndSet(false, true)) return;
        try { exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE"); }
        catch (SQLException e) { System.err.println("could not drop schema " + schema + ": " + e.getMessage()); }
    }

    /** Nearest-rank percentile of sorted values, rounded to 0.01 ms. */
    static double pct(double[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return round(sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))]);
    }

    static double round(double v) { return Math.round(v * 100) / 100.0; }

    static long peakRssMib() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        } catch (Exception ignored) { }
        return -1;
    }
}
