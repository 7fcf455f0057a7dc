package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Enqueued;
import dev.skiplock.Job;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobStateException;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.JobClient;
import dev.skiplock.JobNotFoundException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /api/v1/jobs}: submit, batch, get (and its long poll), list, cancel, retry, signal, delete
 * (API.md). Every call goes once through the caller's {@link JobClient}, durable and in-memory jobs
 * alike.
 */
final class JobsApi {
    private static final Logger LOG = LoggerFactory.getLogger(JobsApi.class);
    private static final Set<String> LIST_PARAMS = Set.of("status", "queue", "kind", "limit", "cursor", "tenant");
    /** How long {@code DELETE ?force=true} waits in the background for a cancelled job to end. */
    private static final Duration FORCE_DELETE_WAIT = Duration.ofMinutes(10);
    /**
     * The longest {@code GET /api/v1/jobs/{id}?wait=} holds a request (API.md); a longer wait is cut
     * to it. Short enough for the proxies and clients in between, which give up on a silent request.
     */
    private static final Duration MAX_WAIT = Duration.ofSeconds(60);

    private final Auth auth;
    private final SubmitParser parser;
    private final long maxBodyBytes;
    /** Fallback mode's cap, or null when jobs are queued normally. */
    private final Semaphore fallbackSlots;

    JobsApi(Auth auth, SubmitParser parser, long maxBodyBytes, Integer fallbackCap) {
        this.auth = auth;
        this.fallbackSlots = fallbackCap == null ? null : new Semaphore(fallbackCap);
        this.parser = parser;
        this.maxBodyBytes = maxBodyBytes;
    }

    void register(RoutesConfig routes) {
        routes.post("/api/v1/jobs", this::submit);
        routes.post("/api/v1/jobs/batch", this::submitBatch);
        routes.get("/api/v1/jobs", this::list);
        routes.get("/api/v1/jobs/{id}", this::get);
        routes.post("/api/v1/jobs/{id}/cancel", ctx -> {
            UUID id = Requests.id(ctx);
            SkiplockServer.json(ctx, 202, JobJson.job(auth.client(ctx, id).cancel(id)));
        });
        routes.post("/api/v1/jobs/{id}/retry", ctx -> {
            UUID id = Requests.id(ctx);
            JobClient client = auth.client(ctx, id);
            parser.checkRetry(client.get(id).orElseThrow(() -> ApiError.notFound("job")));
            SkiplockServer.json(ctx, 202, JobJson.job(client.retry(id)));
        });
        routes.post("/api/v1/jobs/{id}/signals/{name}", ctx -> {
            UUID id = Requests.id(ctx);
            JsonNode payload = Requests.value(ctx, maxBodyBytes, "payload");
            SkiplockServer.json(ctx, 200, JobJson.job(auth.client(ctx, id).signal(id, ctx.pathParam("name"), payload)));
        });
        routes.delete("/api/v1/jobs/{id}", this::delete);
    }

    /**
     * One job; with {@code ?wait=30s} a long poll: answers once the job is terminal or the wait (at
     * most {@link #MAX_WAIT}) is over, with the job as it then is. The wait is
     * {@link JobClient#awaitTerminal}'s, woken by the job's events, not by polling.
     */
    private void get(Context ctx) throws InterruptedException {
        UUID id = Requests.id(ctx);
        String wait = ctx.queryParam("wait");
        JobClient client = auth.client(ctx, id);
        Job job = wait == null ? client.get(id).orElseThrow(() -> ApiError.notFound("job"))
                : client.awaitTerminal(id, capped(Durations.parse("wait", wait)));
        SkiplockServer.json(ctx, 200, JobJson.job(job));
    }

    private static Duration capped(Duration wait) {
        return wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait;
    }

    private void submit(Context ctx) throws InterruptedException {
        JobRequest request = withCallersTrace(ctx, parser.parse(Requests.body(ctx, maxBodyBytes), ""));
        if (fallbackSlots != null) {
            runNow(ctx, request); // in-memory jobs too: fallback mode answers every job finished, or 429
            return;
        }
        Enqueued enqueued = auth.client(ctx).enqueueOrReuse(request);
        SkiplockServer.json(ctx, enqueued.created() ? 201 : 200, JobJson.job(enqueued.job()));
    }

    /**
     * A job without a {@code traceparent} of its own joins the caller's trace: the W3C
     * {@code traceparent} header of the request. An invalid header is ignored, as W3C Trace Context
     * asks of a receiver (an invalid body field is a 400: the client wrote it on purpose).
     */
    private static JobRequest withCallersTrace(Context ctx, JobRequest request) {
        String header = ctx.header("traceparent");
        if (request.traceparent() != null || header == null) {
            return request;
        }
        try {
            return request.withTraceparent(header.strip());
        } catch (IllegalArgumentException invalid) {
            return request;
        }
    }

    /**
     * Fallback mode (seed ADR-0062 §7): the job runs at once on this server's own fallback queue and
     * the answer is the finished job; when the cap is full the caller is told at once (429).
     */
    private void runNow(Context ctx, JobRequest request) throws InterruptedException {
        // A job that could not start at once would hold its slot while it waited (for good, for a
        // dependency that never ends), and a few such requests would refuse every later one.
        if (request.runAt() != null && request.runAt().isAfter(java.time.Instant.now())) {
            throw ApiError.invalid("runAt", "this server runs in fallback mode: a job runs at once, never later");
        }
        if (!request.dependsOn().isEmpty()) {
            throw ApiError.invalid("dependsOn", "this server runs in fallback mode: a job runs at once, not after others");
        }
        if (!fallbackSlots.tryAcquire()) {
            ctx.header("Retry-After", "1");
            throw new ApiError(429, "resource_exhausted", "all fallback slots are busy; retry later", null);
        }
        try {
            JobClient client = auth.client(ctx);
            Job job = client.enqueue(request.withQueue(ServerConfig.FALLBACK_QUEUE));
            if (!job.queue().equals(ServerConfig.FALLBACK_QUEUE)) {
                // the live job holding its unique key, of a queue this server may not run: not awaited
                throw new ApiError(409, "failed_precondition", "uniqueKey: job " + job.id() + " holds it on queue "
                        + job.queue() + ", which this server in fallback mode does not run", "uniqueKey");
            }
            SkiplockServer.json(ctx, 200, JobJson.job(client.awaitTerminal(job.id(), ChronoUnit.FOREVER.getDuration())));
        } finally {
            fallbackSlots.release();
        }
    }

    private void submitBatch(Context ctx) {
        if (fallbackSlots != null) {
            // its jobs would be queued where nothing serves them, past the cap and the synchronous answer
            throw ApiError.conflict("this server runs in fallback mode: submit each job with POST /api/v1/jobs");
        }
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
            JobRequest request = withCallersTrace(ctx, parser.parse(jobs.get(i), "jobs[" + i + "]."));
            if (!request.durable()) {
                throw ApiError.invalid("jobs[" + i + "].durable", "in-memory jobs cannot be submitted in a batch");
            }
            requests.add(request);
        }
        ObjectNode answer = ServerJson.object();
        ArrayNode created = answer.putArray("jobs");
        auth.client(ctx).enqueueMany(requests).forEach(job -> created.add(JobJson.job(job)));
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
        JobPage page = auth.list(ctx, query, ctx.queryParam("tenant"));
        ObjectNode answer = ServerJson.object();
        ArrayNode jobs = answer.putArray("jobs");
        page.jobs().forEach(job -> jobs.add(JobJson.job(job)));
        answer.put("nextCursor", page.nextCursor() == null ? null : page.nextCursor().toString());
        SkiplockServer.json(ctx, 200, answer);
    }

    private void delete(Context ctx) {
        UUID id = Requests.id(ctx);
        JobClient client = auth.client(ctx, id);
        String force = ctx.queryParam("force");
        if (force != null && !force.equals("true") && !force.equals("false")) {
            throw ApiError.invalid("force", "must be true or false");
        }
        Job job = client.get(id).orElseThrow(() -> ApiError.notFound("job"));
        if (job.status().isTerminal()) {
            client.delete(id);
            ctx.status(204);
            return;
        }
        if (!"true".equals(force)) {
            throw ApiError.conflict("job " + id + " is " + job.status().wireName()
                    + "; cancel it first or use ?force=true");
        }
        Job cancelled;
        try {
            cancelled = client.cancel(id);
        } catch (JobStateException ended) {
            if (!client.get(id).orElseThrow(() -> ApiError.notFound("job")).status().isTerminal()) {
                throw ended;
            }
            client.delete(id); // it ended between the read and the cancel: nothing left to cancel
            ctx.status(204);
            return;
        }
        if (cancelled.status().isTerminal()) {
            client.delete(id);
        } else {
            Thread.ofVirtual().name("skiplock-force-delete").start(() -> deleteOnceTerminal(client, id));
        }
        SkiplockServer.json(ctx, 202, JobJson.job(cancelled));
    }

    private static void deleteOnceTerminal(JobClient client, UUID id) {
        try {
            if (client.awaitTerminal(id, FORCE_DELETE_WAIT).status().isTerminal()) {
                client.delete(id);
            } else {
                LOG.warn("job {} did not end within {} after a forced delete; it was not deleted", id, FORCE_DELETE_WAIT);
            }
        } catch (JobNotFoundException e) {
            // deleted meanwhile: nothing left to do
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
