package dev.skiplock.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobStatus;
import dev.skiplock.Names;
import dev.skiplock.QueueActivity;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import dev.skiplock.WorkerInfo;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
    private final PrometheusMeterRegistry prometheus;

    AdminApi(Skiplock skiplock, Auth auth, PrometheusMeterRegistry prometheus) {
        this.skiplock = skiplock;
        this.auth = auth;
        this.prometheus = prometheus;
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
        for (QueueCount count : auth.count(ctx)) {
            queue(byName, count.queue(), paused).with("counts").put(count.status().wireName(), count.jobs());
        }
        for (QueueActivity activity : auth.activity(ctx)) {
            ObjectNode queue = queue(byName, activity.queue(), paused);
            queue.put("oldestQueuedAt", activity.oldestQueuedAt() == null ? null : activity.oldestQueuedAt().toString());
            ArrayNode perMinute = queue.putArray("finishedPerMinute");
            activity.finishedPerMinute().forEach(perMinute::add);
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
            node.putNull("oldestQueuedAt");
            ArrayNode perMinute = node.putArray("finishedPerMinute");
            for (int minute = 0; minute < QueueActivity.MINUTES; minute++) {
                perMinute.add(0);
            }
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

    /**
     * Prometheus text of this instance's Micrometer meters (README "Metrics") and the JVM's, through
     * the Prometheus registry the server added to {@link Skiplock#meterRegistry()}.
     */
    private void metrics(Context ctx) {
        ctx.status(200).contentType("text/plain; version=0.0.4; charset=utf-8").result(prometheus.scrape());
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
}
