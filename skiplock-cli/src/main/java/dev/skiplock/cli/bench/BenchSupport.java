package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.cli.CliJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/** What the benchmark modes share: instances with default settings, batch enqueue, counting, output. */
final class BenchSupport {
    static final String KIND = "noop";

    private BenchSupport() {
    }

    /** An enqueue-only client with default settings. */
    static Skiplock client(String url) {
        return Skiplock.builder().url(url).config(SkiplockConfig.builder().build()).build();
    }

    /**
     * A started worker on queue {@code default} with default settings, running {@code onStart} per
     * job; its pool has {@code poolSize} connections, or the driver's default for {@code null}.
     */
    static Skiplock worker(String url, int concurrency, Integer poolSize, Consumer<java.util.UUID> onStart) {
        Skiplock.Builder builder = Skiplock.builder().url(url);
        if (poolSize != null) {
            builder.maxPoolSize(poolSize);
        }
        return builder.config(SkiplockConfig.builder().queue("default", concurrency).build())
                .handler(KIND, Object.class, context -> {
                    onStart.accept(context.job().id());
                    return JobOutcome.complete();
                })
                .build()
                .start();
    }

    static void enqueueInBatches(Skiplock client, int jobs, int batch) {
        List<JobRequest> requests = new ArrayList<>(batch);
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of(KIND, null));
            if (requests.size() == batch || i == jobs - 1) {
                client.enqueueMany(requests);
                requests.clear();
            }
        }
    }

    static long count(Skiplock client, JobStatus status) {
        return client.count().stream().filter(count -> count.status() == status).mapToLong(QueueCount::jobs).sum();
    }

    /** Waits until {@code succeeded} of the worker reaches {@code target}; returns the time it did. */
    static long awaitSucceeded(Skiplock worker, long target, long timeoutSeconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (worker.metrics().succeeded() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("benchmark did not finish within " + timeoutSeconds + " s: "
                        + worker.metrics());
            }
            LockSupport.parkNanos(1_000_000); // 1 ms: precise enough, and leaves the CPU to the worker
        }
        return System.nanoTime();
    }

    /**
     * Parks until {@link System#nanoTime()} reaches {@code deadlineNanos}. One {@code parkNanos} may
     * return early (a permit left by an earlier unpark of this thread, or spuriously): a sustained run's
     * window then ended at once, with no job finished in it (seen in CI).
     */
    static void parkUntil(long deadlineNanos) {
        for (long left = deadlineNanos - System.nanoTime(); left > 0; left = deadlineNanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    static ObjectNode result(BenchSettings settings) {
        ObjectNode node = CliJson.object();
        node.put("system", "skiplock");
        node.put("mode", settings.mode());
        node.put("n", settings.jobs());
        return node;
    }

    /** Peak resident set size of this JVM in MiB (VmHWM), or -1 where /proc is not available. */
    static long peakRssMib() {
        return statusMib("VmHWM:");
    }

    /** Current resident set size of this JVM in MiB (VmRSS), or -1 where /proc is not available. */
    static long rssMib() {
        return statusMib("VmRSS:");
    }

    private static long statusMib(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** Samples VmRSS every 20 ms from start until {@link #close()}; keeps the largest sample. */
    static final class RssSampler implements AutoCloseable {
        private final java.util.concurrent.atomic.AtomicLong max = new java.util.concurrent.atomic.AtomicLong(-1);
        private final Thread thread = Thread.ofPlatform().daemon().name("bench-rss").start(this::sample);
        private volatile boolean running = true;

        private void sample() {
            while (running) {
                max.accumulateAndGet(rssMib(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        long maxMib() {
            return max.get();
        }

        @Override
        public void close() {
            running = false;
            max.accumulateAndGet(rssMib(), Math::max);
        }
    }

    /** Where {@link #progress} goes: set by {@link BenchCommand} for its run (one benchmark per process). */
    static volatile BenchProgress output = BenchProgress.open(false);

    static void progress(String message) {
        output.phase(message);
    }
}
