package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP service end to end (API.md): a real server on a random port, real command processes. */
abstract class ServiceContract extends ContractBase {
    protected Skiplock skiplock;
    protected SkiplockServer server;
    protected Http http;

    @BeforeEach
    void startServer() {
        skiplock = started(builder(config -> config.queue("default", 4))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner()));
        server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1024 * 1024, true,
                Map.of("greet", List.of("echo", "hello", "{name}"))));
        http = new Http(server.port());
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    String submit(String body) {
        Http.Answer answer = http.post("/api/v1/jobs", body);
        assertThat(answer.status()).as(answer.text()).isEqualTo(201);
        return answer.json().get("id").asText();
    }

    JsonNode awaitJob(String id, String status) {
        return await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> http.get("/api/v1/jobs/" + id).json(), job -> job.get("status").asText().equals(status));
    }

    @Test
    void aJobsEventsDownloadAsAnNdjsonAttachment() {
        String id = submit("""
                {"kind": "command", "args": {"argv": ["sh", "-c", "echo one; echo two"]}}""");
        List<String> followed = http.streamLines("/api/v1/jobs/" + id + "/events?follow=true", Map.of());

        java.net.http.HttpResponse<String> file = http.getWithHeaders("/api/v1/jobs/" + id + "/events/download");

        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/x-ndjson");
        assertThat(file.headers().firstValue("Content-Disposition").orElseThrow())
                .isEqualTo("attachment; filename=\"" + id + "-events.ndjson\"");
        assertThat(file.body().lines().toList()).isEqualTo(followed);
        assertThat(http.get("/api/v1/jobs/" + java.util.UUID.randomUUID() + "/events/download").status()).isEqualTo(404);
    }

    @Test
    void submitFollowToTheTerminalEventThenStatus() {
        String id = submit("""
                {"kind": "command", "args": {"argv": ["sh", "-c", "echo one; echo two >&2; echo three; echo $SKIPLOCK_ATTEMPT"]}}""");

        List<JsonNode> events = http.streamLines("/api/v1/jobs/" + id + "/events?follow=true", Map.of()).stream()
                .map(Json::read).toList();

        assertThat(events.getLast().get("status").asText()).isEqualTo("succeeded");
        assertThat(events.stream().filter(e -> e.get("type").asText().equals("log"))
                .map(e -> e.get("stream").asText() + ":" + e.get("message").asText()).toList())
                .containsSubsequence("stdout:one", "stdout:three", "stdout:1").contains("stderr:two");
        JsonNode job = http.get("/api/v1/jobs/" + id).json();
        assertThat(job.get("status").asText()).isEqualTo("succeeded");
        assertThat(job.get("maxAttempts").asInt()).isEqualTo(1);
        assertThat(job.get("timeoutSeconds").asInt()).isEqualTo(3600);
        assertThat(job.get("startedAt").asText()).isNotEmpty();
        assertThat(job.get("dependsOn").isArray()).isTrue();
    }

    @Test
    void aCommandThatDoesNotExistFailsNamingIt() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"no-such-program-skiplock\"]}}");

        JsonNode job = awaitJob(id, "failed");

        assertThat(job.get("lastError").asText())
                .contains("cannot start no-such-program-skiplock: no such executable on PATH");
    }

    /**
     * A command runs the program its argv names, never a shell's builtin of that name: dash's own
     * {@code echo} read {@code \t} and {@code \c} in its argument (a tool's parameter, say) and cut the
     * line short. Before, this logged "a", a tab and "b".
     */
    @Test
    void aCommandNamedLikeAShellBuiltinRunsTheProgram() {
        String id = submit("""
                {"kind": "command", "args": {"argv": ["echo", "a\\\\tb\\\\c"]}}""");

        List<JsonNode> events = http.streamLines("/api/v1/jobs/" + id + "/events?follow=true", Map.of()).stream()
                .map(Json::read).toList();

        assertThat(events.stream().filter(e -> e.get("type").asText().equals("log")).map(e -> e.get("message").asText()))
                .containsExactly("a\\tb\\c");
        assertThat(events.getLast().get("status").asText()).isEqualTo("succeeded");
    }

    @Test
    void sseResumesAfterLastEventId() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"hi\"]}}");
        awaitJob(id, "succeeded");
        List<String> all = http.streamLines("/api/v1/jobs/" + id + "/events/stream", Map.of());
        List<String> ids = all.stream().filter(line -> line.startsWith("id: ")).toList();
        assertThat(ids).hasSizeGreaterThanOrEqualTo(4);

        List<String> resumed = http.streamLines("/api/v1/jobs/" + id + "/events/stream",
                Map.of("Last-Event-ID", ids.get(1).substring(4)));

        assertThat(resumed.stream().filter(line -> line.startsWith("id: ")).toList())
                .containsExactlyElementsOf(ids.subList(2, ids.size()));
    }

    /** Following a job retried after it failed goes on past its first terminal status into the next attempt's. */
    @Test
    void followingARetriedJobGoesOnIntoItsNextAttempt() throws Exception {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"false\"]}}");
        awaitJob(id, "failed");
        assertThat(http.post("/api/v1/jobs/" + id + "/retry", "").status()).isEqualTo(202);

        List<JsonNode> events = within(() -> http.streamLines("/api/v1/jobs/" + id + "/events?follow=true", Map.of()))
                .stream().map(Json::read).toList();

        assertThat(events.stream().filter(event -> event.get("type").asText().equals("status")
                        && event.get("status").asText().equals("failed")).map(event -> event.get("attempt").asInt()).toList())
                .containsExactly(1, 2);
        assertThat(events.getLast().get("status").asText()).isEqualTo("failed");
    }

    /**
     * The same when the first attempt's terminal event is the last of a page of the stream's reads
     * (a thousand events) and the next attempt has already ended: its events are on the next page.
     */
    @Test
    void followingARetriedJobGoesOnPastAPageEndingAtTheFirstAttemptsEnd() throws Exception {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sh\", \"-c\", \"seq 1 1100; exit 1\"]}}");
        awaitJob(id, "failed");
        assertThat(http.post("/api/v1/jobs/" + id + "/retry", "").status()).isEqualTo(202);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> http.get("/api/v1/jobs/" + id).json(),
                job -> job.get("status").asText().equals("failed") && job.get("attempt").asInt() == 2);
        List<JsonNode> all = new ArrayList<>();
        http.get("/api/v1/jobs/" + id + "/events").json().get("events").forEach(all::add);
        int firstEnd = 0;
        while (!(all.get(firstEnd).get("type").asText().equals("status") && all.get(firstEnd).get("status").asText().equals("failed"))) {
            firstEnd++;
        }
        String pageStart = all.get(firstEnd - 1000).get("seq").asText(); // the page after it ends at the first failure

        List<JsonNode> resumed = within(() -> http.streamLines("/api/v1/jobs/" + id + "/events/stream",
                Map.of("Last-Event-ID", pageStart))).stream().filter(line -> line.startsWith("data: "))
                .map(line -> Json.read(line.substring(6))).toList();

        assertThat(resumed.getLast().get("status").asText()).isEqualTo("failed");
        assertThat(resumed.getLast().get("attempt").asInt()).as("the stream's last event's attempt").isEqualTo(2);
    }

    /**
     * An in-memory job's handler that ignores its cancel logs on after the job's terminal event, more
     * lines than a page of the stream's reads: the stream ends at the terminal event, the late lines
     * dropped as a durable job's are (its lease is gone). Before they were kept, and a page holding
     * only such lines once made the stream forget the terminal event and keep alive for good.
     */
    @Test
    void aStreamEndsAfterTheTerminalEventThoughTheHandlerLogsOn() throws Exception {
        java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch burstWritten = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        Skiplock chatty = started(builder(config -> config.queue("default", 1)).handler("chatty", JsonNode.class,
                context -> {
                    context.log("stdout", "started");
                    awaitIgnoringInterrupts(cancelled);
                    for (int line = 0; line < 1500; line++) {
                        context.log("stdout", "still here " + line); // ignores its cancel, as a handler may
                    }
                    burstWritten.countDown();
                    awaitIgnoringInterrupts(stop);
                    return dev.skiplock.JobOutcome.complete();
                }));
        try (SkiplockServer own = SkiplockServer.start(chatty, new ServerConfig("127.0.0.1", 0, 1 << 20, false, Map.of()))) {
            dev.skiplock.Job job = chatty.enqueue(dev.skiplock.JobRequest.of("chatty", null).withDurable(false));
            await().atMost(WAIT).until(() -> chatty.events(job.id(), 0, 100).stream()
                    .anyMatch(event -> event.type().equals("log")));
            chatty.cancel(job.id());
            await().atMost(WAIT).until(() -> chatty.get(job.id()).orElseThrow().status().isTerminal());
            cancelled.countDown();
            assertThat(burstWritten.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            Http ownHttp = new Http(own.port());
            List<JsonNode> events = within(() -> ownHttp.streamLines("/api/v1/jobs/" + job.id() + "/events?follow=true",
                    Map.of())).stream().map(Json::read).toList();

            assertThat(events.getLast().path("status").asText()).isEqualTo("cancelled");
            assertThat(events).noneMatch(event -> event.path("message").asText().startsWith("still here"));
        } finally {
            cancelled.countDown();
            stop.countDown();
        }
    }

    /** A stream resumed at or past a finished job's last event ends at once instead of keeping alive for good. */
    @Test
    void aStreamResumedPastTheEndOfAFinishedJobEnds() throws Exception {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"hi\"]}}");
        awaitJob(id, "succeeded");
        List<String> ids = http.streamLines("/api/v1/jobs/" + id + "/events/stream", Map.of()).stream()
                .filter(line -> line.startsWith("id: ")).toList();

        for (String lastEventId : List.of(ids.getLast().substring(4), "999999999")) {
            List<String> resumed = within(() -> http.streamLines("/api/v1/jobs/" + id + "/events/stream",
                    Map.of("Last-Event-ID", lastEventId)));
            assertThat(resumed).as("resumed after " + lastEventId).isEmpty();
        }
    }

    /**
     * A stream resumed past the end of a job that still runs (a Last-Event-ID of another job: seqs
     * are shared) ends once the job has ended (it asks each second while it has sent nothing); a Last-Event-ID
     * that is no seq is refused. Before, the stream never saw a terminal event and kept alive for good.
     */
    @Test
    void aStreamResumedPastTheEndOfARunningJobEndsWhenTheJobDoes() throws Exception {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sleep\", \"1\"]}}");
        awaitJob(id, "running");

        List<String> resumed = within(() -> http.streamLines("/api/v1/jobs/" + id + "/events/stream",
                Map.of("Last-Event-ID", "999999999")));

        assertThat(resumed).isEmpty();
        assertThat(http.get("/api/v1/jobs/" + id).json().get("status").asText()).isEqualTo("succeeded");
        for (String notASeq : List.of("-1", "+5", "1e3")) {
            assertThat(http.getWithHeaders("/api/v1/jobs/" + id + "/events/stream", Map.of("Last-Event-ID", notASeq))
                    .statusCode()).as(notASeq).isEqualTo(400);
        }
    }

    /**
     * A stream on a job deleted while it is followed ends cleanly. A forced delete of a running
     * in-memory job cancels it, then forgets it and its events at once; the follower (resumed past
     * the job's end, so in its wait) then reads a job that is gone. Before, that read's not-found went
     * to the stream whose 200 was sent: an error body after the stream's lines, or a cut stream.
     */
    @Test
    void aStreamOfAJobDeletedWhileFollowedEndsCleanly() throws Exception {
        String id = submit("{\"kind\": \"command\", \"durable\": false, \"args\": {\"argv\": [\"sleep\", \"30\"]}}");
        awaitJob(id, "running");
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        // its answer's headers are sent as the stream begins: the job is then followed, and every read after the delete finds it gone
        java.net.http.HttpResponse<java.io.InputStream> stream = client.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + server.port() + "/api/v1/jobs/" + id + "/events/stream"))
                .header("Last-Event-ID", "999999999").timeout(WAIT).build(),
                java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);

        Http.Answer deleted = http.call("DELETE", "/api/v1/jobs/" + id + "?force=true", null, Map.of());
        assertThat(deleted.status()).as(deleted.text()).isIn(202, 204);

        List<String> lines = within(() -> {
            try (java.io.InputStream body = stream.body()) {
                return new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
                        .filter(line -> !line.isBlank()).toList();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(lines).as("the stream's lines").allMatch(line -> line.startsWith("id:") || line.startsWith("data:")
                || line.startsWith(":") || line.startsWith("event:"));
        assertThat(http.get("/api/v1/jobs/" + id).status()).isEqualTo(404);
    }

    /** What {@code call} returns, or a failure once it has taken longer than {@link #WAIT} (a stream that never ends). */
    private static <T> T within(java.util.function.Supplier<T> call) throws Exception {
        return CompletableFuture.supplyAsync(call).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void cancellingARunningSleepStopsItWithinTwoSeconds() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sleep\", \"30\"]}}");
        awaitJob(id, "running");
        // The command runs under a wrapper whose command line names the job's run directory.
        List<ProcessHandle> tree = await().atMost(WAIT).until(() -> ProcessHandle.allProcesses()
                .filter(process -> List.of(process.info().arguments().orElse(new String[0])).stream()
                        .anyMatch(argument -> argument.contains(id)))
                .flatMap(wrapper -> java.util.stream.Stream.concat(java.util.stream.Stream.of(wrapper),
                        wrapper.descendants()))
                .toList(), found -> found.stream().anyMatch(process ->
                        process.info().command().orElse("").endsWith("/sleep")));

        long start = System.nanoTime();
        Http.Answer cancel = http.post("/api/v1/jobs/" + id + "/cancel", "");
        assertThat(cancel.status()).isEqualTo(202);
        awaitJob(id, "cancelled");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        await().atMost(WAIT).until(() -> tree.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(409);
    }

    /**
     * A cancel ends every process of the command's group, also one whose parent exited (so it is
     * no descendant of the run's wrapper any more). Before, that one ran on after the job was
     * cancelled.
     */
    @Test
    void aCancelEndsWhatTheCommandStartedInTheBackground() {
        try {
            String id = submit("""
                    {"kind": "command", "args": {"argv": ["sh", "-c", "(sleep 31337 &); sleep 31338"]}}""");
            awaitJob(id, "running");
            await().atMost(WAIT).until(() -> !processesRunning("sleep 31337").isEmpty());

            assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(202);
            awaitJob(id, "cancelled");

            await().atMost(WAIT).until(() -> processesRunning("sleep 3133").isEmpty());
        } finally {
            processesRunning("sleep 3133").forEach(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * A command that exits leaving a process in its group that goes on writing its output still
     * ends: what it left is ended (SIGTERM, SIGKILL after the grace), and the output read to its end.
     * Before, the output's tail followed the growing file, and the job stayed running until its timeout.
     */
    @Test
    void aCommandThatExitsLeavingABackgroundWriterEnds() {
        try {
            String id = submit("""
                    {"kind": "command", "args": {"argv": ["sh", "-c",
                        "(while :; do echo tick 4242; sleep 0.2; done) & echo started"]}}""");

            JsonNode job = awaitJob(id, "succeeded");

            assertThat(job.get("result").get("exitCode").asInt()).isZero();
            await().atMost(WAIT).until(() -> processesRunning("tick 4242").isEmpty());
        } finally {
            processesRunning("tick 4242").forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** The live processes whose command line contains {@code text}. */
    private static List<ProcessHandle> processesRunning(String text) {
        return ProcessHandle.allProcesses().filter(process -> process.info().commandLine().orElse("").contains(text))
                .filter(process -> process.pid() != ProcessHandle.current().pid()).toList();
    }

    /**
     * A forced remove of a job that ends between its read and its cancel deletes it (204): there is
     * nothing left to cancel. Forced: the job completes before the cancel's statement. Before, the
     * cancel's refusal of a finished job came back as a 409.
     */
    @Test
    void aForcedRemoveOfAJobThatEndsMeanwhileDeletesIt() throws Exception {
        java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<java.util.UUID> job = new java.util.concurrent.atomic.AtomicReference<>();
        Skiplock client = client();
        javax.sql.DataSource pool = BeforeStatement.onceArmed(client.dataSource(), BeforeStatement.sql(client, "jobs",
                "cancel_job"), armed, () -> {
                    finish.countDown();
                    awaitStatus(client, job.get(), dev.skiplock.JobStatus.SUCCEEDED);
                });
        Skiplock worker = started(Skiplock.builder().dataSource(pool).config(fastConfig().queue("brief", 1).build())
                .handler("brief", JsonNode.class, context -> {
                    finish.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    return dev.skiplock.JobOutcome.complete();
                }));
        try (SkiplockServer own = SkiplockServer.start(worker, new ServerConfig("127.0.0.1", 0, 1 << 20, false, Map.of()))) {
            job.set(worker.enqueue(dev.skiplock.JobRequest.of("brief", null).withQueue("brief")).id()); // not the suite's worker's
            awaitStatus(worker, job.get(), dev.skiplock.JobStatus.RUNNING);
            armed.set(true);

            Http.Answer removed = new Http(own.port()).delete("/api/v1/jobs/" + job.get() + "?force=true");

            assertThat(removed.status()).as(removed.text()).isEqualTo(204);
            assertThat(worker.get(job.get())).isEmpty();
        } finally {
            finish.countDown();
        }
    }

    @Test
    void forcedRemoveCancelsThenDeletesARunningJob() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sleep\", \"30\"]}}");
        awaitJob(id, "running");
        assertThat(http.delete("/api/v1/jobs/" + id).status()).isEqualTo(409);

        assertThat(http.delete("/api/v1/jobs/" + id + "?force=true").status()).isEqualTo(202);

        await().atMost(WAIT).until(() -> http.get("/api/v1/jobs/" + id).status() == 404);
    }

    @Test
    void commandThatOutlivesItsTimeoutIsTimedOut() {
        String id = submit("{\"kind\": \"command\", \"timeoutSeconds\": 1, \"args\": {\"argv\": [\"sleep\", \"30\"]}}");

        JsonNode job = awaitJob(id, "timed_out");

        assertThat(job.get("lastError").asText()).isEqualTo("timed out after 1s in attempt 1");
    }

    @Test
    void failingCommandRecordsItsExitCode() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sh\", \"-c\", \"exit 3\"]}}");

        assertThat(awaitJob(id, "failed").get("lastError").asText()).isEqualTo("exit code 3");
    }

    @Test
    void toolJobsStoreTheResolvedArgv() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"tool\": \"greet\", \"params\": {\"name\": \"ada\"}}}");

        JsonNode job = awaitJob(id, "succeeded");
        assertThat(job.get("args").get("argv").toString()).isEqualTo("[\"echo\",\"hello\",\"ada\"]");
        assertThat(http.get("/api/v1/jobs/" + id + "/events").json().get("events").toString()).contains("hello ada");
    }

    @Test
    void badInputGetsA4xxNamingTheFieldAndWritesNothing() {
        Map<String, String> bodies = Map.ofEntries(
                Map.entry("{\"kind\": \"x\", \"priority\": \"high\"}", "priority"),
                Map.entry("{\"kind\": \"x\", \"surprise\": 1}", "surprise"),
                Map.entry("{\"queue\": \"q\"}", "kind"),
                Map.entry("{\"kind\": \"bad kind\"}", "kind"),
                Map.entry("{\"kind\": \"x\", \"maxAttempts\": -1}", "maxAttempts"),
                Map.entry("{\"kind\": \"command\", \"args\": {\"tool\": \"nope\"}}", "args.tool"),
                Map.entry("{\"kind\": \"command\", \"args\": {\"argv\": [\"\", \"x\"]}}", "args.argv[0]"),
                Map.entry("{\"kind\": \"x\", \"runAt\": \"tomorrow\"}", "runAt"),
                Map.entry("{\"kind\": \"x\", \"runAt\": \"+300000000-01-01T00:00:00Z\"}", "runAt"),
                Map.entry("{\"kind\": \"x\", \"timeoutSeconds\": 0}", "timeoutSeconds"),
                Map.entry("{\"kind\": \"x\", \"timeoutSeconds\": 604801}", "timeoutSeconds"),
                Map.entry("{\"kind\": \"command\", \"durable\": false, \"args\": {\"argv\": [\"true\"]},"
                        + " \"metadata\": {\"n\": \"\\u0000\"}}", "metadata"),
                Map.entry("{\"kind\": \"x\"}}", "body"),
                Map.entry("{\"kind\": \"x\", \"metadata\": {\"a\": null}}", "metadata"),
                Map.entry("{\"kind\": \"x\", \"dependsOn\": [\"nope\"]}", "dependsOn"),
                Map.entry("{\"kind\": \"x\", \"durable\": false}", "durable"),
                Map.entry("not json", "body"),
                Map.entry("[1, 2]", "body"));
        bodies.forEach((body, field) -> {
            Http.Answer answer = http.post("/api/v1/jobs", body);
            assertThat(answer.status()).as(body).isEqualTo(400);
            assertThat(answer.json().get("error").get("field").asText()).as(body).isEqualTo(field);
            assertThat(answer.json().get("error").get("code").asText()).isEqualTo("invalid_argument");
        });
        assertThat(http.post("/api/v1/jobs/batch", "{\"jobs\": [{\"kind\": \"a\"}, {\"kind\": \"b\", \"x\": 1}]}")
                .json().get("error").get("field").asText()).isEqualTo("jobs[1].x");
        assertThat(http.post("/api/v1/jobs/batch", "{\"jobs\": [{\"kind\": \"a\"},"
                + " {\"kind\": \"command\", \"args\": {\"tool\": \"nope\"}}]}")
                .json().get("error").get("field").asText()).isEqualTo("jobs[1].args.tool");
        assertThat(http.post("/api/v1/jobs/batch", "{\"jobs\": [{\"kind\": \"a\"},"
                + " {\"kind\": \"b\", \"args\": {\"text\": \"a\\u0000b\"}}]}")
                .json().get("error").get("field").asText()).as("the job of a batch whose args cannot be stored")
                .isEqualTo("jobs[1].args");
        assertThat(http.post("/api/v1/jobs/batch", "{\"jobs\": [{\"kind\": \"a\"}, {\"kind\": \"b\", \"dependsOn\": [\""
                + UUID.randomUUID() + "\"]}]}").json().get("error").get("field").asText())
                .as("the job of a batch whose dependency is unknown").isEqualTo("jobs[1].dependsOn");
        assertThat(http.post("/api/v1/jobs/batch", "{\"jobs\": [{\"kind\": \"b\", \"dependsOn\": [\""
                + UUID.randomUUID() + "\"]}]}").json().get("error").get("field").asText())
                .as("a batch of one names its job too").isEqualTo("jobs[0].dependsOn");
        assertThat(http.post("/api/v1/jobs", "{\"kind\": \"x\", \"args\": \"" + "a".repeat(1024 * 1024) + "\"}")
                .status()).isEqualTo(413);
        assertThat(http.get("/api/v1/jobs/12345").json().get("error").get("field").asText()).isEqualTo("id");
        assertThat(http.get("/api/v1/jobs?cursor=zzz").json().get("error").get("field").asText()).isEqualTo("cursor");
        assertThat(http.get("/api/v1/jobs?status=lost").json().get("error").get("field").asText()).isEqualTo("status");
        assertThat(http.get("/api/v1/jobs?limit=0").status()).isEqualTo(400);
        Http.Answer malformed = http.rawGet("/api/v1/jobs?queue=%zz");
        assertThat(malformed.status()).as(malformed.text()).isEqualTo(400);
        assertThat(malformed.json().get("error").get("field").asText()).as("API reviewer: it was URLDecoder")
                .isEqualTo("queue");
        assertThat(http.get("/api/v1/jobs/" + UUID.randomUUID()).status()).isEqualTo(404);

        assertThat(http.get("/api/v1/jobs").json().get("jobs")).isEmpty();
        assertThat(http.get("/healthz").status()).isEqualTo(200);

        Http.Answer noTimeout = http.post("/api/v1/jobs", "{\"kind\": \"x\", \"timeoutSeconds\": null}");
        assertThat(noTimeout.status()).as("a null field is no field: " + noTimeout.text()).isEqualTo(201);
        assertThat(noTimeout.json().get("timeoutSeconds").isNull()).isTrue();
    }

    @Test
    void uniqueKeyAnswers200WithTheLiveJobAndBatchIsAtomic() {
        String body = "{\"kind\": \"report\", \"uniqueKey\": \"daily\", \"runAt\": \"2999-01-01T00:00:00Z\"}";
        Http.Answer first = http.post("/api/v1/jobs", body);
        Http.Answer second = http.post("/api/v1/jobs", body);
        assertThat(first.status()).isEqualTo(201);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().get("id")).isEqualTo(first.json().get("id"));

        Http.Answer batch = http.post("/api/v1/jobs/batch",
                "{\"jobs\": [{\"kind\": \"a\", \"queue\": \"later\"}, {\"kind\": \"b\", \"queue\": \"later\"}]}");
        assertThat(batch.status()).isEqualTo(201);
        assertThat(batch.json().get("jobs")).hasSize(2);
        JsonNode page = http.get("/api/v1/jobs?queue=later&limit=1").json();
        assertThat(page.get("jobs")).hasSize(1);
        assertThat(http.get("/api/v1/jobs?queue=later&cursor=" + page.get("nextCursor").asText()).json().get("jobs"))
                .hasSize(1);
    }

    @Test
    void queuesCanBePausedAndWorkersAreListed() {
        assertThat(http.post("/api/v1/queues/default/pause", "").status()).isEqualTo(200);
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"true\"]}}");
        JsonNode queues = http.get("/api/v1/queues").json().get("queues");
        assertThat(queues.get(0).get("name").asText()).isEqualTo("default");
        assertThat(queues.get(0).get("paused").asBoolean()).isTrue();
        assertThat(queues.get(0).get("counts").get("queued").asInt()).isEqualTo(1);

        assertThat(http.post("/api/v1/queues/default/resume", "").status()).isEqualTo(200);
        awaitJob(id, "succeeded");
        JsonNode workers = http.get("/api/v1/workers").json().get("workers");
        assertThat(workers.get(0).get("status").asText()).isEqualTo("active");
        assertThat(workers.get(0).get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(http.get("/metrics").text())
                .containsPattern("skiplock_jobs_succeeded_total\\{kind=\"command\",queue=\"default\"} 1(\\.0)?\n");
        assertThat(http.get("/readyz").status()).isEqualTo(200);
    }

    /** The Prometheus text passes Prometheus's own linter ({@code promtool}, Debian package prometheus; .ci/run installs it). */
    @Test
    void theMetricsPassPromtool() throws Exception {
        awaitJob(submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"true\"]}}"), "succeeded");
        String metrics = http.get("/metrics").text();
        Process promtool;
        try {
            promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            throw new AssertionError("promtool is needed (apt-get install prometheus; .ci/run installs it)", e);
        }
        try (var stdin = promtool.getOutputStream()) {
            stdin.write(metrics.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String verdict = new String(promtool.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(promtool.waitFor()).as(verdict + "\n" + metrics).isZero();
        assertThat(verdict).as(metrics).isBlank();
    }

    @Test
    void inMemoryJobsAnswerTheSameApiButAreNotStored() {
        Http.Answer created = http.post("/api/v1/jobs",
                "{\"kind\": \"command\", \"durable\": false, \"args\": {\"argv\": [\"sh\", \"-c\", \"echo in-memory\"]}}");
        assertThat(created.status()).isEqualTo(201);
        String id = created.json().get("id").asText();

        List<JsonNode> events = http.streamLines("/api/v1/jobs/" + id + "/events?follow=true", Map.of()).stream()
                .map(Json::read).toList();
        assertThat(events.getLast().get("status").asText()).isEqualTo("succeeded");
        assertThat(events.toString()).contains("in-memory");
        assertThat(awaitJob(id, "succeeded").get("attempt").asInt()).isEqualTo(1);
        // Not stored: the library's client answers for it in this process, but the database has no row.
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT id FROM skiplock_jobs", row -> row.getString(1)))
                .doesNotContain(id);
        assertThat(http.post("/api/v1/jobs/" + id + "/retry", "").status()).isEqualTo(409);

        String sleeper = http.post("/api/v1/jobs", "{\"kind\": \"command\", \"durable\": false, "
                + "\"args\": {\"argv\": [\"sleep\", \"30\"]}}").json().get("id").asText();
        awaitJob(sleeper, "running");
        assertThat(http.post("/api/v1/jobs/" + sleeper + "/cancel", "").status()).isEqualTo(202);
        awaitJob(sleeper, "cancelled");
        assertThat(http.delete("/api/v1/jobs/" + sleeper).status()).isEqualTo(204);
        assertThat(http.get("/api/v1/jobs/" + sleeper).status()).isEqualTo(404);
    }

    @Test
    void jobWithDependenciesWaitsForThem() {
        String first = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sleep\", \"0.3\"]}}");
        Http.Answer second = http.post("/api/v1/jobs", "{\"kind\": \"command\", \"dependsOn\": [\"" + first
                + "\"], \"args\": {\"argv\": [\"true\"]}}");

        assertThat(second.status()).isEqualTo(201);
        assertThat(second.json().get("status").asText()).isEqualTo("waiting");
        assertThat(second.json().get("dependsOn").get(0).asText()).isEqualTo(first);
        awaitJob(second.json().get("id").asText(), "succeeded");
    }

    @Test
    void retryOfAFinishedJobQueuesAnotherAttempt() {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"false\"]}}");
        awaitJob(id, "failed");

        Http.Answer retried = http.post("/api/v1/jobs/" + id + "/retry", "");

        assertThat(retried.status()).isEqualTo(202);
        JsonNode again = awaitJob(id, "failed");
        assertThat(again.get("attempt").asInt()).isEqualTo(2);
        assertThat(again.get("maxAttempts").asInt()).isEqualTo(2);
        assertThat(http.post("/api/v1/jobs/" + submit("{\"kind\": \"x\", \"queue\": \"idle\"}") + "/retry", "")
                .status()).isEqualTo(409);
    }

    private List<JsonNode> stepEvents(String id) {
        List<JsonNode> steps = new ArrayList<>();
        http.get("/api/v1/jobs/" + id + "/events").json().get("events").forEach(event -> {
            if (event.get("type").asText().equals("step")) {
                steps.add(event);
            }
        });
        return steps;
    }

    @Test
    void aSignalIsDeliveredOnceAndRecordedAsAStepEvent() {
        String id = submit("{\"kind\": \"report\", \"queue\": \"idle\"}");

        Http.Answer signalled = http.post("/api/v1/jobs/" + id + "/signals/approve", "{\"by\": \"ada\"}");

        assertThat(signalled.status()).as(signalled.text()).isEqualTo(200);
        assertThat(signalled.json()).as("the job, as GET answers it").isEqualTo(http.get("/api/v1/jobs/" + id).json());
        assertThat(signalled.json().get("status").asText()).isEqualTo("queued");
        assertThat(stepEvents(id)).singleElement().satisfies(event -> {
            assertThat(event.get("status").asText()).isEqualTo("signalled");
            assertThat(event.get("step").asText()).isEqualTo("approve");
        });

        Http.Answer again = http.post("/api/v1/jobs/" + id + "/signals/approve", "{\"by\": \"bob\"}");
        assertThat(again.status()).as("the first delivery wins").isEqualTo(409);
        assertThat(again.json().get("error").get("code").asText()).isEqualTo("failed_precondition");
        assertThat(http.post("/api/v1/jobs/" + id + "/signals/ship", "").status()).as("an empty body is null")
                .isEqualTo(200);
        assertThat(stepEvents(id)).extracting(event -> event.get("step").asText()).containsExactly("approve", "ship");
    }

    @Test
    void aSignalToAMissingOrFinishedJobOrWithBadInputIsRefused() {
        String id = submit("{\"kind\": \"report\", \"queue\": \"idle\"}");

        Http.Answer missing = http.post("/api/v1/jobs/" + UUID.randomUUID() + "/signals/approve", "{}");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().get("error").get("code").asText()).isEqualTo("not_found");
        // a payload that cannot be stored as given (NUL, a lone surrogate) is refused, not stored changed
        Map.of("bad%20name", "{}", "approve", "{nope", "ship", "1 2", "nul", "{\"note\": \"a\\u0000b\"}",
                "surrogate", "[\"\\ud800\"]").forEach((name, body) -> {
            Http.Answer refused = http.post("/api/v1/jobs/" + id + "/signals/" + name, body);
            assertThat(refused.status()).as(name + " " + body).isEqualTo(400);
            assertThat(refused.json().get("error").get("field").asText()).as(name + " " + body)
                    .isEqualTo(name.equals("bad%20name") ? "name" : "payload");
        });
        assertThat(http.post("/api/v1/jobs/" + id + "/signals/approve", "\"" + "a".repeat(1024 * 1024) + "\"")
                .status()).isEqualTo(413);
        assertThat(stepEvents(id)).as("nothing was delivered").isEmpty();

        assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(202);
        Http.Answer finished = http.post("/api/v1/jobs/" + id + "/signals/approve", "true");
        assertThat(finished.status()).isEqualTo(409);
        assertThat(finished.json().get("error").get("code").asText()).isEqualTo("failed_precondition");
    }

    @Test
    void aLongPollAnswersWithTheJobOnceItEnds() throws Exception {
        String id = submit("{\"kind\": \"command\", \"args\": {\"argv\": [\"sleep\", \"30\"]}}");
        awaitJob(id, "running");
        CompletableFuture<Http.Answer> poll = CompletableFuture
                .supplyAsync(() -> http.get("/api/v1/jobs/" + id + "?wait=10s"));

        assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(202);

        Http.Answer answer = poll.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        assertThat(answer.json().get("status").asText()).isEqualTo("cancelled");
    }

    @Test
    void aLongPollOnAFinishedJobAnswersAtOnceAndABadWaitIsRefused() {
        String id = submit("{\"kind\": \"report\", \"queue\": \"idle\"}");
        Http.Answer stillQueued = http.get("/api/v1/jobs/" + id + "?wait=100ms");
        assertThat(stillQueued.status()).isEqualTo(200);
        assertThat(stillQueued.json().get("status").asText()).as("the job as it is when the wait ends").isEqualTo("queued");
        assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(202);

        Http.Answer finished = http.get("/api/v1/jobs/" + id + "?wait=10s");

        assertThat(finished.status()).isEqualTo(200);
        assertThat(finished.json()).isEqualTo(http.get("/api/v1/jobs/" + id).json());
        assertThat(finished.json().get("status").asText()).isEqualTo("cancelled");
        for (String wait : List.of("soon", "-1s", "1.5s", "10x", "")) {
            Http.Answer refused = http.get("/api/v1/jobs/" + id + "?wait=" + wait);
            assertThat(refused.status()).as(wait).isEqualTo(400);
            assertThat(refused.json().get("error").get("field").asText()).as(wait).isEqualTo("wait");
        }
        assertThat(http.get("/api/v1/jobs/" + UUID.randomUUID() + "?wait=1s").status()).isEqualTo(404);
    }
}
