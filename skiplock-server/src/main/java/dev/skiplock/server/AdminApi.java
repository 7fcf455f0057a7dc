package dev.skiplock.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobStatus;
import dev.skiplock.Names;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockMetrics;
import dev.skiplock.WorkerInfo;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Queues, workers, health and metrics, and the API's OpenAPI description (API.md). */
final class AdminApi {
    /**
     * The OpenAPI description of every route, written by hand beside this class; read once, so a
     * build that lost it fails at start. {@code OpenApiContract} checks it against the routes and
     * real answers.
     */
    private static final String OPENAPI = resource("openapi.json");

    private final Skiplock skiplock;
    private final Auth auth;

    AdminApi(Skiplock skiplock, Auth auth) {
        this.skiplock = skiplock;
        this.auth = auth;
    }

    void register(RoutesConfig routes) {
        routes.get("/api/v1/queues", this::queues);
        routes.post("/api/v1/queues/{queue}/pause", ctx -> pause(ctx, true));
        routes.post("/api/v1/queues/{queue}/resume", ctx -> pause(ctx, false));
        routes.get("/api/v1/workers", this::workers);
        routes.get("/healthz", ctx -> SkiplockServer.json(ctx, 200, ServerJson.object().put("status", "ok")));
        routes.get("/readyz", this::ready);
        routes.get("/metrics", this::metrics);
        routes.get("/api/v1/openapi.json", ctx -> ctx.status(200).contentType("application/json").result(OPENAPI));
    }

    private void queues(Context ctx) {
        Map<String, ObjectNode> byName = new TreeMap<>();
        Set<String> paused = skiplock.pausedQueues();
        for (QueueCount count : auth.client(ctx).count()) {
            queue(byName, count.queue(), paused).with("counts").put(count.status().wireName(), count.jobs());
        }
        paused.forEach(name -> queue(byName, name, paused));
        skiplock.config().queues().keySet().forEach(name -> queue(byName, name, paused));
        ObjectNode answer = ServerJson.object();
        ArrayNode list = answer.putArray("queues");
        byName.values().forEach(list::add);
        SkiplockServer.json(ctx, 200, answer);
    }

    private ObjectNode queue(Map<String, ObjectNode> byName, String name, Set<String> paused) {
        return byName.computeIfAbsent(name, key -> {
            ObjectNode node = ServerJson.object();
            node.put("name", key);
            ObjectNode counts = node.putObject("counts");
            for (JobStatus status : JobStatus.values()) {
                counts.put(status.wireName(), 0);
            }
            node.put("paused", paused.contains(key));
            node.put("concurrency", skiplock.config().queues().get(key));
            return node;
        });
    }

    private void pause(Context ctx, boolean pause) {
        auth.requireAdmin(ctx);
        String queue;
        try {
            queue = Names.check("queue", ctx.pathParam("queue"));
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(e);
        }
        if (pause) {
            skiplock.pauseQueue(queue);
        } else {
            skiplock.resumeQueue(queue);
        }
        SkiplockServer.json(ctx, 200, ServerJson.object().put("name", queue).put("paused", pause));
    }

    private void workers(Context ctx) {
        auth.requireAdmin(ctx);
        ObjectNode answer = ServerJson.object();
        ArrayNode list = answer.putArray("workers");
        for (WorkerInfo worker : skiplock.workers()) {
            list.add(ServerJson.MAPPER.valueToTree(worker));
        }
        SkiplockServer.json(ctx, 200, answer);
    }

    private void ready(Context ctx) {
        skiplock.pausedQueues(); // a small read: throws (→ 503) when the database is unreachable
        SkiplockServer.json(ctx, 200, ServerJson.object().put("status", "ready"));
    }

    /** Prometheus text exposition of this instance's counters and the job counts per queue and status. */
    private void metrics(Context ctx) {
        SkiplockMetrics metrics = skiplock.metrics();
        StringBuilder text = new StringBuilder();
        counter(text, "skiplock_jobs_claimed_total", "Attempts claimed by this process", metrics.claimed());
        counter(text, "skiplock_jobs_succeeded_total", "Attempts that succeeded", metrics.succeeded());
        counter(text, "skiplock_jobs_failed_total", "Attempts that failed for good", metrics.failed());
        counter(text, "skiplock_jobs_retried_total", "Attempts that ended in a retry or snooze", metrics.retried());
        counter(text, "skiplock_jobs_cancelled_total", "Attempts cancelled while running", metrics.cancelled());
        counter(text, "skiplock_jobs_timed_out_total", "Attempts that timed out for good", metrics.timedOut());
        // The Prometheus name predates the Java name (staleCompletions) and is what dashboards scrape: kept.
        counter(text, "skiplock_stale_finalizations_total", "Outcomes rejected by fencing", metrics.staleCompletions());
        counter(text, "skiplock_leases_lost_total", "Executions stopped after losing their lease", metrics.leasesLost());
        counter(text, "skiplock_jobs_adopted_total", "Orphaned jobs taken over", metrics.adopted());
        counter(text, "skiplock_jobs_resumed_total", "Adopted jobs whose execution outlived its worker and was resumed",
                metrics.resumed());
        counter(text, "skiplock_leases_reaped_total", "Expired leases cleared by this reaper", metrics.leasesReaped());
        counter(text, "skiplock_jobs_enqueued_unserved_total",
                "Jobs this process enqueued to a queue no live worker served (worker registry)",
                metrics.enqueuedToUnservedQueues());
        text.append("# HELP skiplock_jobs Jobs per queue and status\n# TYPE skiplock_jobs gauge\n");
        for (QueueCount count : skiplock.count()) {
            text.append("skiplock_jobs{queue=\"").append(count.queue()).append("\",status=\"")
                    .append(count.status().wireName()).append("\"} ").append(count.jobs()).append('\n');
        }
        ctx.status(200).contentType("text/plain; version=0.0.4; charset=utf-8").result(text.toString());
    }

    private static String resource(String name) {
        try (InputStream in = AdminApi.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " beside " + AdminApi.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void counter(StringBuilder text, String name, String help, long value) {
        text.append("# HELP ").append(name).append(' ').append(help).append('\n')
                .append("# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(value).append('\n');
    }
}
