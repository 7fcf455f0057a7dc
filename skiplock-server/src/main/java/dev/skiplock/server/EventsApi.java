package dev.skiplock.server;

import dev.skiplock.JobEvent;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobClient;
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
 * {@code Last-Event-ID}. Streams end after the terminal status event of a job still terminal
 * ({@link #stream}). Followers wait on
 * {@link JobClient#awaitEvents}, woken by the worker or a notification, not by tight polling.
 */
final class EventsApi {
    private static final int PAGE = 1000;
    /** An SSE comment this often keeps proxies from closing an idle stream. */
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    /**
     * How long a stream that has sent nothing waits before it asks again whether its job has ended:
     * one resumed past the end of a running job sees no terminal event, and ended only at its next
     * keep-alive.
     */
    private static final Duration LOOK_AGAIN = Duration.ofSeconds(1);

    private final Auth auth;

    EventsApi(Auth auth) {
        this.auth = auth;
    }

    /** A job's events, and whether the job has ended. */
    private interface Source {
        /** Waits up to {@code millis} for events after {@code after}; empty on timeout. */
        List<JobEvent> await(long after, long millis) throws InterruptedException;

        /** Whether the job is terminal now (a retry may have queued it again since its terminal event). */
        boolean terminal();
    }

    /** The job's events through the caller's client, durable or in-memory (404 if there is no such job). */
    private Source source(Context ctx, UUID id) {
        JobClient client = auth.client(ctx, id);
        client.get(id).orElseThrow(() -> ApiError.notFound("job"));
        return new Source() {
            @Override
            public List<JobEvent> await(long after, long millis) throws InterruptedException {
                try {
                    return millis == 0 ? client.events(id, after, PAGE)
                            : client.awaitEvents(id, after, PAGE, Duration.ofMillis(millis));
                } catch (JobNotFoundException deleted) {
                    // deleted while followed (a forced delete's cancel, then its delete): nothing more
                    // comes, and the stream, whose 200 is sent, ends as after a terminal event
                    return List.of();
                }
            }

            @Override
            public boolean terminal() {
                return client.get(id).map(job -> job.status().isTerminal()).orElse(true); // deleted: nothing more comes
            }
        };
    }

    void register(RoutesConfig routes) {
        routes.get("/api/v1/jobs/{id}/events", this::events);
        routes.get("/api/v1/jobs/{id}/events/stream", this::sse);
        routes.get("/api/v1/jobs/{id}/events/download", this::download);
    }

    /** Every event recorded so far as an NDJSON file (seed "Runs & Builds": events list, stream and download). */
    private void download(Context ctx) throws Exception {
        UUID id = Requests.id(ctx);
        Source source = source(ctx, id);
        ctx.status(200);
        ctx.res().setContentType("application/x-ndjson; charset=utf-8");
        ctx.res().setHeader("Content-Disposition", "attachment; filename=\"" + id + "-events.ndjson\"");
        OutputStream out = ctx.res().getOutputStream();
        long after = 0;
        while (true) {
            List<JobEvent> page = source.await(after, 0);
            StringBuilder chunk = new StringBuilder();
            page.forEach(event -> chunk.append(JobJson.event(event)).append('\n'));
            write(out, chunk.toString());
            if (page.size() < PAGE) {
                return;
            }
            after = page.getLast().seq();
        }
    }

    private void events(Context ctx) throws Exception {
        UUID id = Requests.id(ctx);
        String follow = ctx.queryParam("follow");
        if (follow != null && !follow.equals("true") && !follow.equals("false")) {
            throw ApiError.invalid("follow", "must be true or false");
        }
        Source source = source(ctx, id);
        if ("true".equals(follow)) {
            stream(ctx, source, 0, "application/x-ndjson", event -> JobJson.event(event) + "\n");
            return;
        }
        // Written a page at a time, as the download is: a job's whole log held as one document (a
        // command's million lines) would outgrow the server's heap, which every other job shares.
        ctx.status(200);
        ctx.res().setContentType("application/json");
        OutputStream out = ctx.res().getOutputStream();
        String separator = "";
        StringBuilder chunk = new StringBuilder("{\"events\":[");
        long after = 0;
        while (true) {
            List<JobEvent> page = source.await(after, 0);
            for (JobEvent event : page) {
                chunk.append(separator).append(JobJson.event(event));
                separator = ",";
            }
            if (page.size() < PAGE) {
                break;
            }
            write(out, chunk.toString());
            chunk.setLength(0);
            after = page.getLast().seq();
        }
        write(out, chunk.append("]}").toString());
    }

    private void sse(Context ctx) throws Exception {
        UUID id = Requests.id(ctx);
        long after = 0;
        String lastEventId = ctx.header("Last-Event-ID");
        if (lastEventId != null && !lastEventId.isBlank()) {
            if (!lastEventId.strip().matches("[0-9]{1,18}")) { // a seq: no sign, no -1
                throw ApiError.invalid("Last-Event-ID", "must be the id of an event received before");
            }
            after = Long.parseLong(lastEventId.strip());
        }
        Source source = source(ctx, id);
        stream(ctx, source, after, "text/event-stream",
                event -> "id: " + event.seq() + "\nevent: " + event.type() + "\ndata: " + JobJson.event(event) + "\n\n");
    }

    private interface Format {
        String line(JobEvent event);
    }

    /**
     * Sends the events after {@code after} as they come, and ends after the terminal status event
     * of a job that is still terminal: the stream of a job retried since its first terminal event
     * goes on to the next attempt's. A stream resumed at or past the end of a terminal job ends at
     * once rather than keeping alive for good.
     */
    private static void stream(Context ctx, Source source, long after, String contentType, Format format)
            throws Exception {
        ctx.status(200);
        ctx.res().setContentType(contentType + "; charset=utf-8");
        ctx.res().setHeader("Cache-Control", "no-cache");
        OutputStream out = ctx.res().getOutputStream();
        out.flush();
        // terminal first, events after: events written before it ended are then all read
        if (source.terminal() && source.await(after, 0).isEmpty()) {
            return;
        }
        long last = after;
        boolean endsTerminal = false; // whether the last status event sent is a terminal one
        long keepAliveDue = System.nanoTime() + KEEP_ALIVE.toNanos();
        while (true) {
            // Once an event went out, the terminal one comes as an event (its seq is higher): only a
            // stream that sent none asks again each second, which costs a read of the job each time.
            Duration wait = last == after ? LOOK_AGAIN : KEEP_ALIVE;
            List<JobEvent> events = source.await(last, wait.toMillis());
            if (events.isEmpty()) {
                if (source.terminal() && source.await(last, 0).isEmpty()) {
                    // ended with nothing after `last`: resumed past its end while it ran (a
                    // Last-Event-ID of another job, whose seqs are shared), the terminal event never comes
                    return;
                }
                if (System.nanoTime() - keepAliveDue >= 0) {
                    write(out, contentType.startsWith("text/event-stream") ? ": keep-alive\n\n" : "");
                    keepAliveDue = System.nanoTime() + KEEP_ALIVE.toNanos();
                }
                continue;
            }
            last = send(out, events, format);
            endsTerminal = endsTerminal(events, endsTerminal);
            if (endsTerminal && source.terminal()) {
                // terminal first, events after (as at the start): what came after the terminal event
                // goes out; a next attempt (a status event, maybe a page further) is followed on
                List<JobEvent> rest = source.await(last, 0);
                if (rest.stream().noneMatch(event -> "status".equals(event.type()))) {
                    send(out, rest, format);
                    return;
                }
            }
        }
    }

    /** Sends {@code events}; returns the seq of the last. */
    private static long send(OutputStream out, List<JobEvent> events, Format format) throws IOException {
        StringBuilder chunk = new StringBuilder();
        events.forEach(event -> chunk.append(format.line(event)));
        write(out, chunk.toString());
        return events.isEmpty() ? 0 : events.getLast().seq();
    }

    /** Whether the last status event, {@code events} after those before, is a terminal one. */
    private static boolean endsTerminal(List<JobEvent> events, boolean before) {
        boolean terminal = before;
        for (JobEvent event : events) {
            if ("status".equals(event.type())) {
                terminal = event.isTerminal();
            }
        }
        return terminal;
    }

    private static void write(OutputStream out, String text) throws IOException {
        if (!text.isEmpty()) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }
}
