package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code latency}: an idle worker; a separate Skiplock instance (its own pool, no shared wake-up
 * with the worker) enqueues N jobs at --rate, one transaction each. Latency = handler start minus
 * the moment the enqueue call returned (commit done). 50 untimed jobs warm the JIT first.
 */
final class LatencyBench {
    private static final int WARM_UP = 50;

    private final BenchSettings settings;

    LatencyBench(BenchSettings settings) {
        this.settings = settings;
    }

    ObjectNode run(String url) {
        Map<UUID, Long> started = new ConcurrentHashMap<>();
        Map<UUID, Long> enqueued = new ConcurrentHashMap<>();
        try (Skiplock worker = BenchSupport.worker(url, settings.concurrency(), settings.poolSize(),
                id -> started.putIfAbsent(id, System.nanoTime()));
                Skiplock producer = BenchSupport.client(url)) {
            BenchSupport.progress("latency: " + WARM_UP + " warm-up jobs, then " + settings.jobs() + " at "
                    + settings.rate() + "/s");
            produce(producer, WARM_UP, new ConcurrentHashMap<>());
            BenchSupport.awaitSucceeded(worker, WARM_UP, 60);
            produce(producer, settings.jobs(), enqueued);
            BenchSupport.awaitSucceeded(worker, WARM_UP + settings.jobs(), 600);
        }
        double[] millis = enqueued.entrySet().stream()
                .mapToDouble(entry -> Math.max(0, started.get(entry.getKey()) - entry.getValue()) / 1e6)
                .sorted().toArray();
        ObjectNode result = BenchSupport.result(settings);
        result.put("ok", millis.length == settings.jobs());
        result.put("p50_ms", round(percentile(millis, 50)));
        result.put("p95_ms", round(percentile(millis, 95)));
        result.put("p99_ms", round(percentile(millis, 99)));
        result.put("max_ms", round(Arrays.stream(millis).max().orElse(0)));
        return result;
    }

    private void produce(Skiplock producer, int jobs, Map<UUID, Long> enqueued) {
        long intervalNanos = 1_000_000_000L / settings.rate();
        long next = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
            BenchSupport.parkUntil(next);
            UUID id = producer.enqueue(JobRequest.of(BenchSupport.KIND, null)).id();
            enqueued.put(id, System.nanoTime());
            next += intervalNanos;
        }
    }

    /** Nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, int percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
