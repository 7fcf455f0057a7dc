package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Skiplock;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code submit}: the service's submit path under a steady load (seed ADR-0001: p99 ≤ 50 ms at
 * 1,000 jobs/s). A server with a worker for the jobs runs in this process on the fresh tables;
 * {@code --rate} jobs per second are POSTed to {@code /api/v1/jobs} over loopback HTTP for
 * {@code --seconds}, each on its own virtual thread, so a slow answer never delays the next request
 * (open loop). Latency counts from when a request was due, not when it was sent: a stall of the
 * sender is measured, not hidden. One untimed second warms the path first.
 */
final class SubmitBench {
    private static final String BODY = "{\"kind\": \"" + BenchSupport.KIND + "\", \"args\": {}}";

    private final BenchSettings settings;

    SubmitBench(BenchSettings settings) {
        this.settings = settings;
    }

    ObjectNode run(String url) throws InterruptedException {
        try (Skiplock skiplock = BenchSupport.worker(url, settings.concurrency(), id -> { });
                SkiplockServer server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0,
                        ServerConfig.DEFAULT_MAX_BODY_BYTES, false, Map.of()));
                ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor()) {
            HttpClient http = HttpClient.newBuilder().executor(senders).build();
            URI jobs = URI.create("http://127.0.0.1:" + server.port() + "/api/v1/jobs");
            BenchSupport.progress("submit: 1 s warm-up, then " + settings.rate() + " jobs/s for " + settings.seconds() + " s");
            offer(http, jobs, senders, settings.rate(), new long[settings.rate()], new AtomicInteger());
            int total = settings.rate() * settings.seconds();
            long[] latencies = new long[total];
            AtomicInteger failures = new AtomicInteger();
            long start = System.nanoTime();
            offer(http, jobs, senders, total, latencies, failures);
            double seconds = (System.nanoTime() - start) / 1e9;
            double[] millis = Arrays.stream(latencies).mapToDouble(nanos -> nanos / 1e6).sorted().toArray();
            ObjectNode result = BenchSupport.result(settings);
            result.put("ok", failures.get() == 0);
            result.put("requests", total);
            result.put("failed", failures.get());
            result.put("achieved_per_s", Math.round(total / seconds));
            result.put("p50_ms", LatencyBench.round(LatencyBench.percentile(millis, 50)));
            result.put("p95_ms", LatencyBench.round(LatencyBench.percentile(millis, 95)));
            result.put("p99_ms", LatencyBench.round(LatencyBench.percentile(millis, 99)));
            result.put("max_ms", LatencyBench.round(millis[millis.length - 1]));
            return result;
        }
    }

    /** Sends {@code count} requests at the rate, each due at its slot; returns when all are answered. */
    private void offer(HttpClient http, URI jobs, ExecutorService senders, int count, long[] latencies,
            AtomicInteger failures) throws InterruptedException {
        long intervalNanos = 1_000_000_000L / settings.rate();
        long start = System.nanoTime();
        java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            long due = start + i * intervalNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            int index = i;
            senders.execute(() -> {
                try {
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(jobs)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() != 201) {
                        failures.incrementAndGet();
                    }
                } catch (java.io.IOException e) {
                    failures.incrementAndGet();
                } catch (InterruptedException e) {
                    failures.incrementAndGet();
                    Thread.currentThread().interrupt();
                } finally {
                    latencies[index] = System.nanoTime() - due;
                    answered.countDown();
                }
            });
        }
        answered.await();
    }
}
