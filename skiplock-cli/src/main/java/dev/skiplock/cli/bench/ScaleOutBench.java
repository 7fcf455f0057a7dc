package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.cli.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code drain --processes P}: the drain spread over P worker processes on one database (P = 1 too,
 * so that 1, 2 and 4 are measured alike).
 * N jobs are enqueued to the paused queue (untimed); P processes of this same program
 * ({@code bench drain-worker}, each with its own pool of {@code --pool-size} connections, the
 * driver's default size without it, plus one notification connection on PostgreSQL; this process's
 * {@code -X} JVM options, {@code --concurrency} slots) start and report ready; the clock runs from
 * the queue's resume until the counts show all N succeeded (counted ten times a second while the
 * finish is far, {@link #pauseBeforeCount}).
 */
final class ScaleOutBench {
    private static final long TIMEOUT_SECONDS = 1800;
    /** What a {@code drain-worker} prints once its worker has started (and paid its warm-up). */
    static final String READY = "ready";
    /** Heap sizes, the collector, the compilers' tiers, heap shares of the machine's memory. */
    private static final java.util.regex.Pattern JVM_TUNING = java.util.regex.Pattern.compile(
            "-Xm[sxn]\\d+[kKmMgG]?|-Xss\\d+[kKmMgG]?|-XX:[+-]Use\\w*GC|-XX:TieredStopAtLevel=\\d"
                    + "|-XX:[+-]TieredCompilation|-XX:\\w*RAMPercentage=[\\d.]+");

    /** The shortest pause between two counts: the finish is seen at most this late, give or take. */
    static final long COUNT_PAUSE_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** The longest: ten counts a second while the finish is far. */
    static final long COUNT_PAUSE_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final BenchSettings settings;

    ScaleOutBench(BenchSettings settings) {
        this.settings = settings;
    }

    ObjectNode run(String url) throws IOException, InterruptedException {
        List<Process> workers = new ArrayList<>();
        try (Skiplock client = BenchSupport.client(url)) {
            client.pauseQueue("default");
            BenchSupport.progress("drain: enqueueing " + settings.jobs() + " jobs to the paused queue (untimed)");
            BenchSupport.enqueueInBatches(client, settings.jobs(), settings.batch());
            BenchSupport.progress("drain: starting " + settings.processes() + " worker processes");
            for (int i = 0; i < settings.processes(); i++) {
                workers.add(start(url));
            }
            for (Process worker : workers) {
                awaitReady(worker);
            }
            BenchSupport.progress("drain: " + settings.processes() + " processes working off " + settings.jobs()
                    + " jobs (timed)");
            long start = System.nanoTime();
            client.resumeQueue("default");
            long deadline = start + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            long succeeded;
            while ((succeeded = BenchSupport.count(client, JobStatus.SUCCEEDED)) < settings.jobs()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("benchmark did not finish within " + TIMEOUT_SECONDS + " s");
                }
                LockSupport.parkNanos(pauseBeforeCount(succeeded, settings.jobs(), System.nanoTime() - start));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            ObjectNode result = BenchSupport.result(settings);
            result.put("ok", succeeded == settings.jobs());
            result.put("processes", settings.processes());
            result.put("jobs_per_s", Math.round(settings.jobs() / seconds));
            result.put("seconds", seconds);
            return result;
        } finally {
            for (Process worker : workers) {
                worker.getOutputStream().close(); // a drain-worker stops when its stdin closes
            }
            for (Process worker : workers) {
                if (!worker.waitFor(30, TimeUnit.SECONDS)) {
                    worker.destroyForcibly();
                }
            }
        }
    }

    private Process start(String url) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmTuning());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "--db", url,
                "bench", BenchCommand.DRAIN_WORKER, "--concurrency", String.valueOf(settings.concurrency())));
        if (settings.poolSize() != null) {
            command.addAll(List.of("--pool-size", String.valueOf(settings.poolSize())));
        }
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /**
     * How long the wait for the finish pauses before its next count: half the time the jobs left
     * would take at the rate so far, between {@link #COUNT_PAUSE_MIN_NANOS} and
     * {@link #COUNT_PAUSE_MAX_NANOS}. The count sums the delta rows the running drain appends (a
     * few per claim and per completion, folded only at the reaper's turn), so under load it is not
     * one small read: counting every 5 ms took about a third of a PostgreSQL backend's time
     * (1,197 counts of 3.3 ms in a 12-s drain, {@code pg_stat_statements}) and cost the drain about a
     * sixth of its throughput (interleaved rounds, issue #12). Close to the finish the pauses shorten,
     * so it is still seen within a few milliseconds.
     */
    static long pauseBeforeCount(long done, long total, long elapsedNanos) {
        if (done <= 0) {
            return COUNT_PAUSE_MAX_NANOS;
        }
        double leftNanos = (double) (total - done) * elapsedNanos / done;
        return Math.clamp((long) (leftNanos / 2), COUNT_PAUSE_MIN_NANOS, COUNT_PAUSE_MAX_NANOS);
    }

    /**
     * The heap, collector and compiler options this process runs with: the launcher's
     * ({@code SKIPLOCK_JAVA_OPTS}), so each worker process runs as {@code skiplock worker} would.
     * Only those: options that name a file, a port or an agent (a recording, a log file, a debugger)
     * would collide between the processes.
     */
    private static List<String> jvmTuning() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(option -> JVM_TUNING.matcher(option).matches()).toList();
    }

    private static void awaitReady(Process worker) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.equals(READY)) {
                // Whatever it prints later is read and dropped: a full pipe would stall it.
                Thread.ofVirtual().name("drain-worker-output").start(() -> {
                    try {
                        out.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ended) {
                        // the process ended
                    }
                });
                return;
            }
        }
        throw new UncheckedIOException(new IOException("a drain-worker process ended before it was ready (exit "
                + worker.onExit().join().exitValue() + ")"));
    }

    /**
     * The {@code drain-worker} process: a started worker on the given database (no fresh tables)
     * until its stdin closes.
     */
    static int serve(String url, int concurrency, Integer poolSize) throws IOException {
        try (Skiplock worker = BenchSupport.worker(url, concurrency, poolSize, id -> { })) {
            System.out.println(READY);
            System.out.flush();
            while (System.in.read() >= 0) {
                // the parent never writes; it closes stdin to stop this process
            }
        }
        return 0;
    }
}
