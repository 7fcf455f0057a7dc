package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Enqueued;
import dev.skiplock.Job;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code /api/v1/jobs}: submit, batch, get, list, cancel, retry, delete (API.md). */
final class JobsApi {
    private static final Logger LOG = LoggerFactory.getLogger(JobsApi.class);
    private static final Set<String> LIST_PARAMS = Set.of("status", "queue", "kind", "limit", "cursor");
    /** How long {@code DELETE ?force=true} waits in the background for a cancelled job to end. */
    private static final Duration FORCE_DELETE_WAIT = Duration.ofMinutes(10);

    private final Skiplock skiplock;
    private final SubmitParser parser;
    private final long maxBodyBytes;

    JobsApi(Skiplock skiplock, SubmitParser parser, long maxBodyBytes) {
        this.skiplock = skiplock;
        this.parser = parser;
        this.maxBodyBytes = maxBodyBytes;
    }

    void register(RoutesConfig routes) {
        routes.post("/api/v1/jobs", this::submit);
        routes.post("/api/v1/jobs/batch", this::submitBatch);
        routes.get("/api/v1/jobs", this::list);
        routes.get("/api/v1/jobs/{id}", ctx -> SkiplockServer.json(ctx, 200,
                JobJson.job(skiplock.get(Requests.id(ctx)).orElseThrow(() -> ApiError.notFound("job")))));
        routes.post("/api/v1/jobs/{id}/cancel", ctx -> SkiplockServer.json(ctx, 202,
                JobJson.job(skiplock.cancel(Requests.id(ctx)))));
        routes.post("/api/v1/jobs/{id}/retry", ctx -> SkiplockServer.json(ctx, 202,
                JobJson.job(skiplock.retry(Requests.id(ctx)))));
        routes.delete("/api/v1/jobs/{id}", this::delete);
    }

    private void submit(Context ctx) {
        JobRequest request = parser.parse(Requests.body(ctx, maxBodyBytes), "");
        Enqueued enqueued = skiplock.enqueueOrReuse(request);
        SkiplockServer.json(ctx, enqueued.created() ? 201 : 200, JobJson.job(enqueued.job()));
    }

    private void submitBatch(Context ctx) {
        JsonNode body = Requests.body(ctx, maxBodyBytes);
        if (!body.isObject()) {
            throw ApiError.invalid("body", "must be a JSON object {\"jobs\": [...]}");
        }
        body.fieldNames().forEachRemaining(field -> {
            if (!field.equals("jobs")) {
                throw ApiError.invalid(field, "unknown field");
            }
        });
        JsonNode jobs = body.get("jobs");
        if (jobs == null || !jobs.isArray() || jobs.isEmpty()) {
            throw ApiError.invalid("jobs", "must be a non-empty array");
        }
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            requests.add(parser.parse(jobs.get(i), "jobs[" + i + "]."));
        }
        ObjectNode answer = Json.object();
        ArrayNode created = answer.putArray("jobs");
        skiplock.enqueueMany(requests).forEach(job -> created.add(JobJson.job(job)));
        SkiplockServer.json(ctx, 201, answer);
    }

    private void list(Context ctx) {
        ctx.queryParamMap().keySet().forEach(name -> {
            if (!LIST_PARAMS.contains(name)) {
                throw ApiError.invalid(name, "unknown query parameter");
            }
        });
        JobQuery query = JobQuery.all();
        String status = ctx.queryParam("status");
        if (status != null) {
            query = query.withStatus(JobStatus.fromWireName(status));
        }
        if (ctx.queryParam("queue") != null) {
            query = query.withQueue(ctx.queryParam("queue"));
        }
        if (ctx.queryParam("kind") != null) {
            query = query.withKind(ctx.queryParam("kind"));
        }
        if (ctx.queryParam("limit") != null) {
            query = query.withLimit(parseInt("limit", ctx.queryParam("limit")));
        }
        if (ctx.queryParam("cursor") != null) {
            query = query.withCursor(parseCursor(ctx.queryParam("cursor")));
        }
        JobPage page = skiplock.list(query);
        ObjectNode answer = Json.object();
        ArrayNode jobs = answer.putArray("jobs");
        page.jobs().forEach(job -> jobs.add(JobJson.job(job)));
        answer.put("nextCursor", page.nextCursor() == null ? null : page.nextCursor().toString());
        SkiplockServer.json(ctx, 200, answer);
    }

    private void delete(Context ctx) {
        UUID id = Requests.id(ctx);
        String force = ctx.queryParam("force");
        if (force != null && !force.equals("true") && !force.equals("false")) {
            throw ApiError.invalid("force", "must be true or false");
        }
        Job job = skiplock.get(id).orElseThrow(() -> ApiError.notFound("job"));
        if (job.status().isTerminal()) {
            skiplock.delete(id);
            ctx.status(204);
            return;
        }
        if (!"true".equals(force)) {
            throw ApiError.conflict("job " + id + " is " + job.status().wireName()
                    + "; cancel it first or use ?force=true");
        }
        Job cancelled = skiplock.cancel(id);
        if (cancelled.status().isTerminal()) {
            skiplock.delete(id);
        } else {
            Thread.ofVirtual().name("skiplock-force-delete").start(() -> deleteOnceTerminal(id));
        }
        SkiplockServer.json(ctx, 202, JobJson.job(cancelled));
    }

    private void deleteOnceTerminal(UUID id) {
        long deadline = System.nanoTime() + FORCE_DELETE_WAIT.toNanos();
        long after = 0;
        try {
            while (System.nanoTime() < deadline) {
                var job = skiplock.get(id);
                if (job.isEmpty()) {
                    return;
                }
                if (job.get().status().isTerminal()) {
                    skiplock.delete(id);
                    return;
                }
                var events = skiplock.awaitEvents(id, after, 1000, Duration.ofSeconds(5));
                if (!events.isEmpty()) {
                    after = events.getLast().seq();
                }
            }
            LOG.warn("job {} did not end within {} after a forced delete; it was not deleted", id, FORCE_DELETE_WAIT);
        } catch (Exception e) {
            LOG.warn("forced delete of job {} failed: {}", id, e.getMessage());
        }
    }

    private static int parseInt(String field, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw ApiError.invalid(field, "must be an integer, got '" + value + "'");
        }
    }

    private static UUID parseCursor(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("cursor", "not a cursor from a previous page");
        }
    }
}
