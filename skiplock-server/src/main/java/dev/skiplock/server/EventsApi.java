package dev.skiplock.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobEvent;
import dev.skiplock.JobClient;
import dev.skiplock.internal.Json;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A job's events: the whole list, an NDJSON stream ({@code ?follow=true}) and SSE with
 * {@code Last-Event-ID}. Streams end after the terminal status event. Followers wait on
 * {@link JobClient#awaitEvents}, woken by the worker or a notification, not by tight polling.
 */
final class EventsApi {
    private static final int PAGE = 1000;
    /** An SSE comment this often keeps proxies from closing an idle stream. */
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final Auth auth;

    EventsApi(Auth auth) {
        this.auth = auth;
    }

    void register(RoutesConfig routes) {
        routes.get("/api/v1/jobs/{id}/events", this::events);
        routes.get("/api/v1/jobs/{id}/events/stream", this::sse);
    }

    private void events(Context ctx) throws Exception {
        UUID id = Requests.id(ctx);
        JobClient skiplock = auth.client(ctx);
        String follow = ctx.queryParam("follow");
        if (follow != null && !follow.equals("true") && !follow.equals("false")) {
            throw ApiError.invalid("follow", "must be true or false");
        }
        skiplock.get(id).orElseThrow(() -> ApiError.notFound("job"));
        if ("true".equals(follow)) {
            stream(ctx, skiplock, id, 0, "application/x-ndjson", event -> JobJson.event(event) + "\n");
            return;
        }
        ObjectNode answer = Json.object();
        ArrayNode list = answer.putArray("events");
        long after = 0;
        while (true) {
            List<JobEvent> page = skiplock.events(id, after, PAGE);
            page.forEach(event -> list.add(JobJson.event(event)));
            if (page.size() < PAGE) {
                break;
            }
            after = page.getLast().seq();
        }
        SkiplockServer.json(ctx, 200, answer);
    }

    private void sse(Context ctx) throws Exception {
        UUID id = Requests.id(ctx);
        JobClient skiplock = auth.client(ctx);
        long after = 0;
        String lastEventId = ctx.header("Last-Event-ID");
        if (lastEventId != null && !lastEventId.isBlank()) {
            try {
                after = Long.parseLong(lastEventId.strip());
            } catch (NumberFormatException e) {
                throw ApiError.invalid("Last-Event-ID", "must be the id of an event received before");
            }
        }
        skiplock.get(id).orElseThrow(() -> ApiError.notFound("job"));
        stream(ctx, skiplock, id, after, "text/event-stream",
                event -> "id: " + event.seq() + "\nevent: " + event.type() + "\ndata: " + JobJson.event(event) + "\n\n");
    }

    private interface Format {
        String line(JobEvent event);
    }

    private static void stream(Context ctx, JobClient skiplock, UUID id, long after, String contentType,
            Format format) throws Exception {
        ctx.status(200);
        ctx.res().setContentType(contentType + "; charset=utf-8");
        ctx.res().setHeader("Cache-Control", "no-cache");
        OutputStream out = ctx.res().getOutputStream();
        out.flush();
        long last = after;
        while (true) {
            List<JobEvent> events = skiplock.awaitEvents(id, last, PAGE, KEEP_ALIVE);
            if (events.isEmpty()) {
                write(out, contentType.startsWith("text/event-stream") ? ": keep-alive\n\n" : "");
                continue;
            }
            StringBuilder chunk = new StringBuilder();
            boolean terminal = false;
            for (JobEvent event : events) {
                chunk.append(format.line(event));
                last = event.seq();
                terminal |= event.isTerminal();
                if (terminal) {
                    break;
                }
            }
            write(out, chunk.toString());
            if (terminal) {
                return;
            }
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        if (!text.isEmpty()) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }
}
