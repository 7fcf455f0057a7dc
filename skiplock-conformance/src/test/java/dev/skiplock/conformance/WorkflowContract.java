package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.ExecutionHook;
import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.JobSuspendedException;
import dev.skiplock.Skiplock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Durable workflows through the public API (DESIGN §5, steps): steps run once per job across
 * attempts, their writes fenced by the lease; durable sleeps and signal waits hold no lease and no
 * thread; signals are delivered once; parents' results reach their dependents; the execution hook
 * runs in the handler's transaction; a handler completes its job in its own transaction or not at
 * all. In-memory jobs keep steps and sleeps and refuse the rest.
 */
abstract class WorkflowContract extends ContractBase {
    static final Duration LONG_WAIT = Duration.ofHours(1);

    record Flow(String label) {
    }

    /** How often each step's body ran, per job: the ledger the tests count executions from. */
    private final Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();

    private int ranCount(String step) {
        return ran.computeIfAbsent(step, name -> new AtomicInteger()).get();
    }

    private <T> JobContext.StepBody<T> counted(String step, JobContext.StepBody<T> body) {
        return () -> {
            ran.computeIfAbsent(step, name -> new AtomicInteger()).incrementAndGet();
            return body.run();
        };
    }

    private Skiplock worker(String kind, dev.skiplock.JobHandler<Flow> handler) {
        return started(builder(config -> config.queue("default", 4)).handler(kind, Flow.class, handler));
    }

    private static List<String> stepEvents(Skiplock skiplock, UUID id) {
        return skiplock.events(id, 0, 1000).stream().filter(event -> event.type().equals("step"))
                .map(event -> event.step() + ":" + event.status()).toList();
    }

    static JobRequest flow(String kind) {
        return JobRequest.of(kind, new Flow("x"));
    }

    @Test
    void finishedStepsAreNotRunAgainByALaterAttemptAndReturnTheirStoredOutput() throws Exception {
        Skiplock skiplock = worker("build", context -> {
            Map<?, ?> checkout = context.step("checkout", Map.class, counted("checkout",
                    () -> Map.of("commit", "abc123", "files", List.of(1, 2.5, "three"))));
            context.step("compile", counted("compile", () -> {
                if (context.attempt() == 1) {
                    throw new IllegalStateException("compiler crashed");
                }
                return "ok";
            }));
            return JobOutcome.complete(checkout);
        });

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("build").withMaxAttempts(2)).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(ranCount("checkout")).isEqualTo(1);
        assertThat(ranCount("compile")).isEqualTo(2);
        // the second attempt got checkout's output back as stored (exact JSON), not run again
        assertThat(done.result().toString()).isEqualTo(
                Jdbc.query(skiplock.dataSource(), "SELECT output FROM skiplock_job_steps WHERE job_id = '" + done.id()
                        + "' AND name = 'checkout'", row -> row.getString(1)).getFirst().replace(" ", ""));
        assertThat(done.result().get("files").toString()).isEqualTo("[1,2.5,\"three\"]");
        assertThat(stepEvents(skiplock, done.id())).containsExactly("checkout:started", "checkout:succeeded",
                "compile:started", "compile:failed", "compile:started", "compile:succeeded");
        JobEvent failed = skiplock.events(done.id(), 0, 100).stream()
                .filter(event -> "failed".equals(event.status()) && "compile".equals(event.step())).findFirst().orElseThrow();
        assertThat(failed.message()).isEqualTo("java.lang.IllegalStateException: compiler crashed");
        assertThat(failed.attempt()).isEqualTo(1);
    }

    @Test
    void aWorkerKilledInStepThreeLeavesStepsThreeToFiveToItsAdopter() throws Exception {
        Path ledger = Files.createTempFile("skiplock-ledger-", ".txt");
        Job job = client().enqueue(flow("five").withMaxAttempts(3));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), WorkflowWorkerMain.class.getName(), database.url(),
                ledger.toString()).redirectErrorStream(true).start();
        try {
            assertThat(CrashContract.awaitLine(process, "in s3")).isEqualTo("in s3 " + job.id());
        } finally {
            WorkerProcess.kill(process); // SIGKILL in the middle of step 3
        }

        Skiplock adopter = started(builder(config -> config.queue("default", 1))
                .handler("five", Flow.class, FiveSteps.handler(ledger, false)));
        Job done = awaitStatus(adopter, job.id(), JobStatus.SUCCEEDED);

        assertThat(done.result().asInt()).isEqualTo(1 + 4 + 9 + 16 + 25);
        assertThat(done.attempt()).isEqualTo(2);
        // steps 1 and 2 ran once, in the killed process; its adopter ran 3 (again), 4 and 5 only
        assertThat(Files.readAllLines(ledger)).containsExactly("s1", "s2", "s3", "s3", "s4", "s5");
        Files.delete(ledger);
    }

    /** The {@code stage} shell function of README "Durable workflows", so the README shows what runs here. */
    private static String readmeStageFunction() throws java.io.IOException {
        String readme = Files.readString(Path.of("..").toAbsolutePath().normalize().resolve("README.md"));
        int start = readme.indexOf("```sh\nstage() {");
        assertThat(start).as("README's stage function").isNotNegative();
        return readme.substring(start + "```sh\n".length(), readme.indexOf("\n}\n", start) + 3);
    }

    /**
     * A command checkpoints through files ({@code $SKIPLOCK_STEPS}); killed during its third stage,
     * it is run again by the next attempt and skips the two stages it had finished.
     */
    @Test
    void aKilledCommandRunsAgainFromAfterItsLastFinishedStage() throws Exception {
        Path runDir = Files.createTempDirectory("skiplock-runs-");
        Path ledger = Files.createTempFile("skiplock-ledger-", ".txt");
        String script = readmeStageFunction() + """
                stage one sh -c 'echo one >> LEDGER'
                stage two sh -c 'echo two >> LEDGER'
                stage three sh -c 'echo three >> LEDGER; if [ "$SKIPLOCK_ATTEMPT" = 1 ]; then sleep 60; fi'
                """.replace("LEDGER", ledger.toString());
        Skiplock skiplock = started(builder(config -> config.queue("default", 1))
                .handler("command", JsonNode.class, dev.skiplock.server.SkiplockServer.commandRunner(runDir)));
        Job job = skiplock.enqueue(JobRequest.of("command", Map.of("argv", List.of("sh", "-c", script)))
                .withMaxAttempts(2));
        await().atMost(WAIT).until(() -> Files.readAllLines(ledger).contains("three"));

        Path run = CommandAdoptionContract.CommandRuns.of(runDir, job);
        long wrapper = Long.parseLong(Files.readString(run.resolve("pid")).trim());
        ProcessHandle.of(wrapper).orElseThrow().descendants().forEach(ProcessHandle::destroyForcibly); // SIGKILL

        Job done = skiplock.awaitTerminal(job.id(), WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(Files.readAllLines(ledger)).containsExactly("one", "two", "three", "three");
        assertThat(skiplock.events(job.id(), 0, 1000).stream()
                .filter(event -> event.type().equals("log") && event.attempt() == 2).map(JobEvent::message))
                .containsExactly("one: done by an earlier attempt", "two: done by an earlier attempt");
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT name, output FROM skiplock_job_steps WHERE job_id = '"
                + job.id() + "' ORDER BY created_at", row -> row.getString(1) + " " + row.getString(2).replace(" ", "")))
                .containsExactly("one {\"attempt\":1}", "two {\"attempt\":1}", "three {\"attempt\":2}");
        Files.delete(ledger);
    }

    @Test
    void stepFilesThatCannotBeRecordedBecomeNotesAndTheCommandGoesOn() throws Exception {
        Path runDir = Files.createTempDirectory("skiplock-runs-");
        String script = """
                mkdir "$SKIPLOCK_STEPS/cache"
                printf '\\377\\376' > "$SKIPLOCK_STEPS/binary.tmp" && mv "$SKIPLOCK_STEPS/binary.tmp" "$SKIPLOCK_STEPS/binary"
                echo "200 OK" > "$SKIPLOCK_STEPS/status.tmp" && mv "$SKIPLOCK_STEPS/status.tmp" "$SKIPLOCK_STEPS/status"
                echo '{"files": 3}' > "$SKIPLOCK_STEPS/count.tmp" && mv "$SKIPLOCK_STEPS/count.tmp" "$SKIPLOCK_STEPS/count"
                echo finished
                """;
        Skiplock skiplock = started(builder(config -> config.queue("default", 1))
                .handler("command", JsonNode.class, dev.skiplock.server.SkiplockServer.commandRunner(runDir)));

        Job done = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("command",
                Map.of("argv", List.of("sh", "-c", script)))).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT name, output FROM skiplock_job_steps WHERE job_id = '"
                + done.id() + "' ORDER BY name", row -> row.getString(1) + " " + row.getString(2).replace(" ", "")))
                .containsExactly("count {\"files\":3}", "status \"200OK\"");
        assertThat(skiplock.events(done.id(), 0, 100).stream().filter(event -> "skiplock".equals(event.stream()))
                .map(JobEvent::message)).containsExactlyInAnyOrder(
                        "skiplock: step file binary not recorded: Input length = 1",
                        "skiplock: step file cache not recorded: not a regular file");
    }

    /**
     * A step file larger than the instance's maxStepOutputBytes is refused unread. Before, the runner
     * read and parsed any file up to 16 MiB and left the limit to the library: a file of small
     * numbers took many times its size in heap, more than the launcher's 64 MiB. The file here is not
     * UTF-8, so a read of it would say so instead. A file of the limit's length and a newline (as
     * {@code echo} writes) is read: the newline is not stored.
     */
    @Test
    void aStepFileOverTheStepOutputLimitIsRefusedUnread() throws Exception {
        Path runDir = Files.createTempDirectory("skiplock-runs-");
        String script = """
                head -c 100 /dev/zero | tr '\\0' '\\377' > "$SKIPLOCK_STEPS/large.tmp"
                mv "$SKIPLOCK_STEPS/large.tmp" "$SKIPLOCK_STEPS/large"
                printf '"%63s' '"' | tr ' ' x > "$SKIPLOCK_STEPS/limit.tmp"
                echo >> "$SKIPLOCK_STEPS/limit.tmp"
                mv "$SKIPLOCK_STEPS/limit.tmp" "$SKIPLOCK_STEPS/limit"
                echo '{"files": 3}' > "$SKIPLOCK_STEPS/count.tmp"
                mv "$SKIPLOCK_STEPS/count.tmp" "$SKIPLOCK_STEPS/count"
                """;
        Skiplock skiplock = started(builder(config -> config.queue("default", 1).maxStepOutputBytes(64))
                .handler("command", JsonNode.class, dev.skiplock.server.SkiplockServer.commandRunner(runDir, 64)));

        Job done = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("command",
                Map.of("argv", List.of("sh", "-c", script)))).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT name FROM skiplock_job_steps WHERE job_id = '"
                + done.id() + "' ORDER BY name", row -> row.getString(1))).containsExactly("count", "limit");
        assertThat(skiplock.events(done.id(), 0, 100).stream().filter(event -> "skiplock".equals(event.stream()))
                .map(JobEvent::message)).containsExactly(
                        "skiplock: step file large not recorded: 100 bytes, more than 64 (maxStepOutputBytes)");
        assertThatThrownBy(() -> dev.skiplock.server.SkiplockServer.commandRunner(runDir, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxStepOutputBytes:");
    }

    /**
     * A database restart while a handler works: its context's calls (progress, a step's checkpoint
     * read, event and record, a signal's read) run again on a new connection. Here the first two
     * runs of each statement fail as on a cut connection (SQLState 08006), and the job succeeds in
     * its one attempt. Before the calls were sent again, the first failure failed the attempt.
     */
    @Test
    void aHandlersContextCallsRideOutALostConnection() throws Exception {
        Skiplock client = client();
        Job job = client.enqueue(flow("approve").withMaxAttempts(1));
        client.signal(job.id(), "approval", Map.of("by", "ada"));
        Map<String, AtomicInteger> failures = new java.util.LinkedHashMap<>();
        javax.sql.DataSource cut = client.dataSource();
        for (String statement : List.of("update_progress", "list_steps", "append_step_event", "record_step", "read_signal")) {
            failures.put(statement, new AtomicInteger(2));
            cut = LostAnswers.failing(cut, statement, failures.get(statement));
        }
        started(Skiplock.builder().dataSource(cut).config(fastConfig().queue("default", 1).build())
                .handler("approve", Flow.class, context -> {
                    context.progress(Map.of("stage", "fetch"));
                    String fetched = context.step("fetch", String.class, counted("fetch", () -> "fetched"));
                    JsonNode approval = context.awaitSignal("approval", LONG_WAIT).orElseThrow();
                    return JobOutcome.complete(Map.of("fetched", fetched, "by", approval.get("by").asText()));
                }));

        Job done = awaitTerminal(client, job.id());
        failures.forEach((statement, left) -> assertThat(left.get()).as("%s runs left to fail", statement).isZero());
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).as("the attempt went on").isEqualTo(1);
        assertThat(done.result().get("fetched").asText()).isEqualTo("fetched");
        assertThat(done.result().get("by").asText()).isEqualTo("ada");
        assertThat(done.progress().get("stage").asText()).isEqualTo("fetch");
        assertThat(ranCount("fetch")).isEqualTo(1);
        assertThat(stepEvents(client, job.id())).containsExactly("approval:signalled", "fetch:started", "fetch:succeeded");
    }

    /**
     * A checkpoint whose commit answer was lost: sent again, it records nothing (the name is
     * taken), and the step returns the checkpoint stored by the first sending; its body ran once and
     * its succeeded event was written once. Before the call was sent again, the lost answer failed
     * the attempt.
     */
    @Test
    void aCheckpointWhoseCommitAnswerWasLostIsFoundNotWrittenTwice() throws Exception {
        Skiplock client = client();
        AtomicBoolean dropNextAnswer = new AtomicBoolean(true);
        started(Skiplock.builder().dataSource(LostAnswers.dropping(client.dataSource(), "record_step", dropNextAnswer))
                .config(fastConfig().queue("default", 1).build())
                .handler("build", Flow.class, context -> JobOutcome.complete(
                        context.step("checkout", Map.class, counted("checkout", () -> Map.of("commit", "abc123"))))));

        Job done = awaitTerminal(client, client.enqueue(flow("build").withMaxAttempts(1)).id());
        assertThat(dropNextAnswer.get()).as("the checkpoint's commit answer was dropped").isFalse();
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.result().get("commit").asText()).isEqualTo("abc123");
        assertThat(ranCount("checkout")).isEqualTo(1);
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_job_steps WHERE job_id = '"
                + done.id() + "'", row -> row.getLong(1))).containsExactly(1L);
        assertThat(stepEvents(client, done.id())).containsExactly("checkout:started", "checkout:succeeded");
    }

    /**
     * The interleaving a second read of the checkpoints races in, forced: a thread of the handler
     * reads them before step b exists, and its answer is held; meanwhile the handler's thread reads
     * them, records b, whose commit answer is lost, and reads them again to find b, a read held in
     * turn until the older one has landed. That older read must not replace what the execution
     * knows: b is found and the job succeeds. When a reload replaced the checkpoints with whichever
     * read landed first (this session's 279b416), b was not found ("no longer holds the job's
     * lease") and the attempt failed.
     */
    @Test
    void anOlderReadOfTheCheckpointsDoesNotHideOneRecordedMeanwhile() throws Exception {
        Skiplock client = client();
        CountDownLatch olderReadHeld = new CountDownLatch(1);
        CountDownLatch olderReadMayLand = new CountDownLatch(1);
        CountDownLatch olderReadLanded = new CountDownLatch(1);
        AtomicBoolean dropNextAnswer = new AtomicBoolean(true);
        javax.sql.DataSource source = LostAnswers.paused(
                LostAnswers.dropping(client.dataSource(), "record_step", dropNextAnswer), "list_steps", run -> {
                    if (run == 1) { // the helper thread's read, made before b exists
                        olderReadHeld.countDown();
                        awaitAtMost(olderReadMayLand);
                    } else if (run == 3) { // the handler's read after b's lost answer
                        olderReadMayLand.countDown();
                        awaitAtMost(olderReadLanded);
                    }
                });
        started(Skiplock.builder().dataSource(source).config(fastConfig().queue("default", 1).build())
                .handler("build", Flow.class, context -> {
                    CompletableFuture<Map<?, ?>> helper = new CompletableFuture<>();
                    Thread.ofPlatform().start(() -> {
                        try {
                            helper.complete(context.step("a", Map.class, counted("a", () -> {
                                olderReadLanded.countDown(); // its read came back: the helper goes on
                                return Map.of("a", 1);
                            })));
                        } catch (Exception | Error e) {
                            helper.completeExceptionally(e);
                        }
                    });
                    assertThat(olderReadHeld.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                    String b = context.step("b", String.class, counted("b", () -> "bee"));
                    return JobOutcome.complete(Map.of("a", helper.get(), "b", b));
                }));

        Job done = awaitTerminal(client, client.enqueue(flow("build").withMaxAttempts(1)).id());
        assertThat(dropNextAnswer.get()).as("b's commit answer was dropped").isFalse();
        assertThat(done.status()).as("last error: %s", done.lastError()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().get("b").asText()).isEqualTo("bee");
        assertThat(done.result().get("a").get("a").asInt()).isEqualTo(1);
        assertThat(ranCount("a")).isEqualTo(1);
        assertThat(ranCount("b")).isEqualTo(1);
        assertThat(stepEvents(client, done.id())).containsExactlyInAnyOrder("a:started", "a:succeeded", "b:started",
                "b:succeeded");
    }

    private static void awaitAtMost(CountDownLatch latch) {
        try {
            latch.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aStaleExecutionCannotRecordAStep() throws Exception {
        InsideAStep inside = jobInsideItsFirstStep();
        Job job = inside.job();

        database.stealLease(inside.skiplock().dataSource(), job.id(), "another-worker"); // a new token: this execution is stale
        inside.release().countDown();

        assertThat(inside.refused().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(JobStateException.class)
                .hasMessageContaining("step expensive of job " + job.id() + " not recorded");
        assertThat(Jdbc.query(inside.skiplock().dataSource(), "SELECT count(*) FROM skiplock_job_steps WHERE job_id = '"
                + job.id() + "'", row -> row.getLong(1))).containsExactly(0L);
        assertThat(stepEvents(inside.skiplock(), job.id())).containsExactly("expensive:started");
    }

    /**
     * A stale execution whose step's name the job's new execution has recorded meanwhile does not
     * take that checkpoint for its own: it ends with a JobStateException, and never runs the body
     * of the step after it (the new execution's to run).
     */
    @Test
    void aStaleExecutionDoesNotTakeTheNewExecutionsCheckpointForItsOwn() throws Exception {
        InsideAStep inside = jobInsideItsFirstStep();
        Job job = inside.job();

        database.stealLease(inside.skiplock().dataSource(), job.id(), "another-worker");
        Jdbc.update(inside.skiplock().dataSource(), "INSERT INTO skiplock_job_steps (job_id, name, kind, output)"
                + " VALUES (?, 'expensive', 'step', '\"the new execution''s result\"')", database.id(job.id()));
        inside.release().countDown();

        assertThat(inside.refused().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(JobStateException.class)
                .hasMessageContaining("step expensive of job " + job.id() + " not recorded");
        assertThat(ran.get("next")).as("the next step's body").isNull();
    }

    /** A job whose handler is inside the body of its step {@code expensive} until {@code release}; then step {@code next}. */
    private record InsideAStep(Skiplock skiplock, Job job, CountDownLatch release, CompletableFuture<Throwable> refused) {
    }

    /** {@code refused} completes with what the handler threw (null: nothing). */
    private InsideAStep jobInsideItsFirstStep() throws InterruptedException {
        CountDownLatch insideBody = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        Skiplock skiplock = worker("slow", context -> {
            try {
                context.step("expensive", counted("expensive", () -> {
                    insideBody.countDown();
                    awaitUninterruptibly(release); // the heartbeat interrupts us once it sees the lease gone
                    return "stale result";
                }));
                context.step("next", counted("next", () -> "run twice"));
                refused.complete(null);
            } catch (RuntimeException e) {
                refused.complete(e);
                throw e;
            }
            return JobOutcome.complete();
        });
        Job job = skiplock.enqueue(flow("slow").withMaxAttempts(1));
        assertThat(insideBody.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return new InsideAStep(skiplock, job, release, refused);
    }

    @Test
    void aDurableSleepHoldsNoLeaseAndResumesWithItsStepsDone() throws Exception {
        Skiplock skiplock = worker("nap", context -> {
            String before = context.step("before", String.class, counted("before", () -> "b"));
            context.sleep("nap", Duration.ofSeconds(2));
            String after = context.step("after", String.class, counted("after", () -> "a"));
            return JobOutcome.complete(before + after);
        });
        Job job = skiplock.enqueue(flow("nap").withMaxAttempts(1));

        Job sleeping = await().atMost(WAIT).until(() -> skiplock.get(job.id()).orElseThrow(),
                seen -> stepEvents(skiplock, job.id()).contains("nap:waiting") && seen.status() == JobStatus.QUEUED);
        assertThat(sleeping.lockedBy()).isNull();
        assertThat(sleeping.lockedUntil()).isNull();
        assertThat(sleeping.availableAt()).isAfter(sleeping.startedAt().plusMillis(1000));
        assertThat(ranCount("after")).isZero();

        Job done = skiplock.awaitTerminal(job.id(), WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("ba");
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.maxAttempts()).isEqualTo(2); // the sleep used up no attempt
        assertThat(ranCount("before")).isEqualTo(1);
        assertThat(ranCount("after")).isEqualTo(1);
        assertThat(stepEvents(skiplock, job.id())).containsExactly("before:started", "before:succeeded",
                "nap:waiting", "after:started", "after:succeeded");
    }

    @Test
    void aSignalSentBeforeTheJobWaitsIsKeptAndConsumedWhenItDoes() throws Exception {
        Skiplock client = client();
        Job job = client.enqueue(flow("approve"));
        client.signal(job.id(), "approval", Map.of("by", "ada"));

        Skiplock skiplock = worker("approve", context -> JobOutcome.complete(
                context.awaitSignal("approval", LONG_WAIT).orElseThrow()));

        Job done = skiplock.awaitTerminal(job.id(), WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1); // it never waited
        assertThat(done.result().get("by").asText()).isEqualTo("ada");
        assertThat(stepEvents(skiplock, job.id())).containsExactly("approval:signalled");
    }

    @Test
    void aSignalEndsTheWaitOfAJobThatWaitsForIt() throws Exception {
        Skiplock skiplock = worker("approve", context -> {
            context.step("prepare", counted("prepare", () -> "ready"));
            return JobOutcome.complete(context.awaitSignal("approval", LONG_WAIT).orElseThrow());
        });
        Job job = skiplock.enqueue(flow("approve"));
        Job waiting = await().atMost(WAIT).until(() -> skiplock.get(job.id()).orElseThrow(),
                seen -> seen.status() == JobStatus.QUEUED && stepEvents(skiplock, job.id()).contains("approval:waiting"));
        assertThat(waiting.availableAt()).isAfter(waiting.startedAt().plus(Duration.ofMinutes(30)));

        skiplock.signal(job.id(), "approval", Map.of("by", "grace"));

        Job done = skiplock.awaitTerminal(job.id(), WAIT); // well before the hour the wait would last
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().get("by").asText()).isEqualTo("grace");
        assertThat(ranCount("prepare")).isEqualTo(1);
        assertThat(stepEvents(skiplock, job.id())).containsExactly("prepare:started", "prepare:succeeded",
                "approval:waiting", "approval:signalled");
    }

    /**
     * The interleaving a delivery and a wait can race in, forced: the signal comes after the handler
     * found none and began to wait, while the job is still running (so the delivery has nothing to
     * wake). The worker looks again once the wait is written, so the job runs at once instead of
     * after its hour. Before that second look this test failed: the job stayed queued for the hour.
     */
    @Test
    void aSignalThatComesWhileTheWaitIsBeingWrittenStillEndsTheWait() throws Exception {
        AtomicInteger deliveries = new AtomicInteger();
        Skiplock[] self = new Skiplock[1];
        self[0] = worker("approve", context -> {
            try {
                return JobOutcome.complete(context.awaitSignal("approval", LONG_WAIT).orElseThrow());
            } catch (JobSuspendedException waiting) {
                if (deliveries.getAndIncrement() == 0) {
                    self[0].signal(context.job().id(), "approval", "late"); // the job is still running here
                }
                throw waiting;
            }
        });
        Job job = self[0].enqueue(flow("approve"));

        Job done = self[0].awaitTerminal(job.id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("late");
        assertThat(done.attempt()).isEqualTo(2);
    }

    /**
     * A wait that timed out stays timed out: a signal that comes later neither ends the job's next
     * wait (a sleep here) nor changes what the timed-out wait returns when the handler runs again.
     * Before, the late signal made the sleeping job claimable at once, and the replayed wait
     * returned its payload.
     */
    @Test
    void aSignalAfterItsWaitTimedOutWakesNothingAndChangesNoReplay() throws Exception {
        Skiplock skiplock = worker("approve", context -> {
            String answer = context.awaitSignal("approval", Duration.ofMillis(200)).map(JsonNode::asText).orElse("timed out");
            String branch = context.step("branch", String.class, () -> answer);
            context.sleep("cool-down", LONG_WAIT);
            return JobOutcome.complete(answer + " / " + branch);
        });
        Job job = skiplock.enqueue(flow("approve"));
        await().atMost(WAIT).until(() -> stepEvents(skiplock, job.id()).contains("cool-down:waiting")
                && skiplock.get(job.id()).orElseThrow().status() == JobStatus.QUEUED);

        skiplock.signal(job.id(), "approval", "late"); // delivered: the job is not terminal

        Job sleeping = skiplock.get(job.id()).orElseThrow();
        assertThat(sleeping.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(sleeping.availableAt()).isAfter(sleeping.startedAt().plus(Duration.ofMinutes(30)));
        database.endWait(skiplock.dataSource(), job.id(), "cool-down");
        Job done = skiplock.awaitTerminal(job.id(), WAIT);
        assertThat(done.result().asText()).isEqualTo("timed out / timed out");
    }

    /**
     * A step's output is returned as stored the first time too: a map whose keys PostgreSQL's jsonb
     * orders its own way iterates in the same order in the first execution and in its replay.
     * Before, the first execution saw the order it wrote, the replay jsonb's.
     */
    @Test
    void aStepsOutputIsTheSameValueInEveryExecution() throws Exception {
        Skiplock skiplock = worker("order", context -> {
            Map<?, ?> output = context.step("lookup", Map.class, () -> {
                Map<String, Object> written = new java.util.LinkedHashMap<>();
                written.put("name", "ada");
                written.put("id", 7);
                written.put("a", true);
                return written;
            });
            String keys = String.join(",", output.keySet().stream().map(String::valueOf).toList());
            String first = context.step("first-keys", String.class, () -> keys);
            context.sleep("pause", Duration.ofMillis(100)); // the attempt ends; the handler runs again
            return JobOutcome.complete(first + " / " + keys);
        });

        assertTheReplaySawWhatTheFirstExecutionSaw(skiplock, "order");
    }

    /** Runs a job of {@code kind}, whose result is "what its first execution saw / what its replay saw". */
    private static void assertTheReplaySawWhatTheFirstExecutionSaw(Skiplock skiplock, String kind) throws Exception {
        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow(kind)).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        String[] seen = done.result().asText().split(" / ");
        assertThat(seen[1]).as("the replay, against the first execution").isEqualTo(seen[0]);
    }

    /**
     * A wait of no time for a signal delivered while the wait is being written: whatever the first
     * execution's wait returned, the replayed wait returns the same. Forced by delivering the signal
     * just before the handler's transaction that writes the wait's checkpoint begins. Before, the
     * first execution returned nothing (it had read before the delivery) and the replay the payload.
     */
    @Test
    void aWaitOfNoTimeReturnsWhenReplayedWhatItFirstReturned() throws Exception {
        Skiplock client = client();
        java.util.concurrent.atomic.AtomicReference<UUID> waiting = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Thread> armed = new java.util.concurrent.atomic.AtomicReference<>();
        javax.sql.DataSource deliveringFirst = BeforeStatement.onceArmedBeginning(client.dataSource(), armed,
                () -> client.signal(waiting.get(), "approval", "yes"));
        Skiplock skiplock = started(Skiplock.builder().dataSource(deliveringFirst)
                .config(fastConfig().queue("default", 4).build()).handler("approve", Flow.class, context -> {
                    waiting.set(context.job().id());
                    if (ran.computeIfAbsent("wait", name -> new AtomicInteger()).incrementAndGet() == 1) {
                        armed.set(Thread.currentThread());
                    }
                    String answer = context.awaitSignal("approval", Duration.ZERO).map(JsonNode::asText).orElse("none");
                    String branch = context.step("branch", String.class, () -> answer);
                    context.sleep("pause", Duration.ofMillis(100)); // the attempt ends; the handler runs again
                    return JobOutcome.complete(branch + " / " + answer);
                }));

        assertTheReplaySawWhatTheFirstExecutionSaw(skiplock, "approve");
    }

    @Test
    void theFirstSignalOfANameWinsAndALaterOneIsRefused() throws Exception {
        Skiplock client = client();
        Job job = client.enqueue(flow("approve").withQueue("unserved"));
        client.signal(job.id(), "approval", "first");

        assertThatThrownBy(() -> client.signal(job.id(), "approval", "second")).isInstanceOf(JobStateException.class)
                .hasMessageContaining("signal approval was already delivered");
        assertThatThrownBy(() -> client.signal(job.id(), "bad name", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name:");
        assertThatThrownBy(() -> client.signal(UUID.randomUUID(), "approval", null))
                .isInstanceOf(dev.skiplock.JobNotFoundException.class);
        assertThatThrownBy(() -> client.tenant("other").signal(job.id(), "other", null))
                .isInstanceOf(dev.skiplock.JobNotFoundException.class);
        assertThat(Jdbc.query(client.dataSource(), "SELECT payload FROM skiplock_job_signals WHERE job_id = '"
                + job.id() + "'", row -> row.getString(1))).containsExactly("\"first\"");

        client.cancel(job.id());
        assertThatThrownBy(() -> client.signal(job.id(), "another", null)).isInstanceOf(JobStateException.class)
                .hasMessageContaining("already cancelled");
    }

    @Test
    void aSignalWaitThatTimesOutReturnsEmpty() throws Exception {
        Skiplock skiplock = worker("approve", context -> JobOutcome.complete(
                context.awaitSignal("approval", Duration.ofMillis(300)).map(JsonNode::asText).orElse("no answer")));

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("approve")).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("no answer");
        assertThat(done.attempt()).isEqualTo(2);
    }

    @Test
    void awaitTerminalReturnsWhenTheJobEnds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock skiplock = worker("gate", context -> {
            release.await();
            return JobOutcome.complete("through");
        });
        Job job = skiplock.enqueue(flow("gate"));
        awaitStatus(skiplock, job.id(), JobStatus.RUNNING);
        CompletableFuture<Job> awaited = CompletableFuture.supplyAsync(() -> {
            try {
                return skiplock.awaitTerminal(job.id(), LONG_WAIT);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(awaited).isNotDone();

        release.countDown();

        assertThat(awaited.get(2 * WAIT.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(awaited.get().result().asText()).isEqualTo("through");
    }

    @Test
    void aDependentReadsTheResultsOfTheJobsItWaitedFor() throws Exception {
        Skiplock skiplock = worker("stage", context -> context.args().label().equals("build")
                ? JobOutcome.complete(Map.of("artifact", "app-1.jar"))
                : JobOutcome.complete(context.parentResults()));
        Job build = skiplock.enqueue(JobRequest.of("stage", new Flow("build")));
        Job run = skiplock.enqueue(JobRequest.of("stage", new Flow("run")).withDependsOn(List.of(build.id())));

        Job done = skiplock.awaitTerminal(run.id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().get(build.id().toString()).get("artifact").asText()).isEqualTo("app-1.jar");
    }

    @Test
    void stepNamesAndLimitsAreCheckedWithClearErrors() throws Exception {
        Skiplock skiplock = started(builder(config -> config.queue("default", 2).maxStepsPerJob(2).maxStepOutputBytes(64))
                .handler("limits", Flow.class, context -> {
                    switch (context.args().label()) {
                        case "name" -> context.step("bad name", () -> 1);
                        case "count" -> {
                            context.step("one", () -> 1);
                            context.step("two", () -> 2);
                            context.step("three", () -> 3);
                        }
                        case "size" -> context.step("big", () -> "x".repeat(100));
                        case "sleep" -> context.sleep("nap", Duration.ofDays(200_000_000));
                        case "wait" -> context.awaitSignal("approve", Duration.ofDays(36_501));
                        case "snooze" -> {
                            return JobOutcome.snooze(Duration.ofDays(36_501));
                        }
                        default -> {
                            context.step("twice", () -> 1);
                            context.sleep("twice", Duration.ZERO);
                        }
                    }
                    return JobOutcome.complete();
                }));

        assertThat(lastErrorOf(skiplock, "name")).startsWith("java.lang.IllegalArgumentException: name: must match");
        assertThat(lastErrorOf(skiplock, "count")).contains("maxStepsPerJob: job").contains("three is refused");
        assertThat(lastErrorOf(skiplock, "size")).contains("output of step big: 102 bytes of JSON, more than the limit of 64");
        assertThat(lastErrorOf(skiplock, "kinds")).contains("name: twice is already a step of this job, not a sleep");
        // A wait past any database's time range: refused by name on both, not a SQL error on one
        // (PostgreSQL's interval) and a wait for good on the other.
        assertThat(lastErrorOf(skiplock, "sleep")).startsWith("java.lang.IllegalArgumentException: duration: must be at most");
        assertThat(lastErrorOf(skiplock, "wait")).startsWith("java.lang.IllegalArgumentException: timeout: must be at most");
        assertThat(lastErrorOf(skiplock, "snooze")).startsWith("java.lang.IllegalArgumentException: delay: must be at most");
    }

    private static String lastErrorOf(Skiplock skiplock, String label) throws InterruptedException {
        Job done = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("limits", new Flow(label)).withMaxAttempts(1)).id(),
                WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.FAILED);
        return done.lastError();
    }

    @Test
    void theExecutionHookRunsInTheHandlersTransactionBeforeItsWork() throws Exception {
        Skiplock client = client();
        Jdbc.update(client.dataSource(), "CREATE TABLE audit (job_id TEXT, tenant TEXT)");
        Skiplock skiplock = started(builder(config -> config.queue("default", 2))
                .executionHook(new ExecutionHook() {
                    @Override
                    public void beforeExecute(JobContext<?> context, Connection connection) throws SQLException {
                        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO audit VALUES (?, ?)")) {
                            insert.setString(1, context.job().id().toString());
                            insert.setString(2, context.job().tenant());
                            insert.executeUpdate();
                        }
                    }
                })
                .handler("audited", Flow.class, context -> JobOutcome.complete(context.inTransaction(connection -> {
                    if (context.args().label().equals("fail")) {
                        throw new IllegalStateException("work failed");
                    }
                    try (var rows = connection.createStatement().executeQuery(
                            "SELECT tenant FROM audit WHERE job_id = '" + context.job().id() + "'")) {
                        return rows.next() ? rows.getString(1) : "hook did not run first";
                    }
                }))));

        dev.skiplock.JobClient acme = skiplock.tenant("acme");
        Job kept = acme.awaitTerminal(acme.enqueue(JobRequest.of("audited", new Flow("ok"))).id(), WAIT);
        Job rolledBack = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("audited", new Flow("fail"))
                .withMaxAttempts(1)).id(), WAIT);

        assertThat(kept.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(kept.result().asText()).isEqualTo("acme");
        assertThat(rolledBack.lastError()).isEqualTo("java.lang.IllegalStateException: work failed");
        assertThat(Jdbc.query(client.dataSource(), "SELECT job_id FROM audit", row -> row.getString(1)))
                .containsExactly(kept.id().toString()); // the failed work's hook row was rolled back with it
    }

    @Test
    void aHandlerCompletesItsJobInItsOwnTransactionTogetherWithItsWrites() throws Exception {
        Skiplock client = client();
        Jdbc.update(client.dataSource(), "CREATE TABLE invoices (job_id TEXT PRIMARY KEY, amount INTEGER)");
        Skiplock skiplock = worker("invoice", context -> {
            context.log("stdout", "issuing");
            context.inTransaction(connection -> {
                insertInvoice(connection, context.job().id());
                context.completeInTransaction(connection, Map.of("invoice", context.job().id().toString()));
                return null;
            });
            return JobOutcome.complete("not written: the transaction completed the job");
        });

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("invoice")).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().get("invoice").asText()).isEqualTo(done.id().toString());
        assertThat(invoices(client)).containsExactly(done.id().toString());
        List<JobEvent> events = skiplock.events(done.id(), 0, 100);
        assertThat(events).extracting(JobEvent::type).containsExactly("status", "status", "log", "status");
        assertThat(events.getLast().status()).isEqualTo("succeeded");
        awaitCount(() -> skiplock.metrics().succeeded(), 1);
        assertThat(skiplock.metrics().staleCompletions()).isZero();
    }

    @Test
    void aTransactionThatDoesNotCommitLeavesNeitherTheWritesNorTheCompletion() throws Exception {
        Skiplock client = client();
        Jdbc.update(client.dataSource(), "CREATE TABLE invoices (job_id TEXT PRIMARY KEY, amount INTEGER)");
        Skiplock skiplock = worker("invoice", context -> {
            try {
                context.inTransaction(connection -> {
                    insertInvoice(connection, context.job().id());
                    context.completeInTransaction(connection, "paid");
                    throw new IllegalStateException("payment provider said no");
                });
            } catch (IllegalStateException swallowed) {
                // a handler that swallows the failure still does not succeed: its completion rolled back
            }
            return JobOutcome.complete("looks fine");
        });

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("invoice").withMaxAttempts(1)).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.FAILED);
        assertThat(done.lastError()).isEqualTo("completeInTransaction was called, but its transaction did not commit");
        assertThat(invoices(client)).isEmpty();
    }

    /**
     * A handler stopped (here by its timeout) before it completes in its transaction, that swallows
     * the interrupt and the refusal and writes on: its transaction's writes, before and after, are
     * rolled back when it ends, as when its lease is gone. Before, completeInTransaction threw without
     * rolling back, and inTransaction committed the writes of a stopped execution (lifecycle
     * reviewer); then it rolled back at once, and the writes after it committed in a new transaction
     * (second reader).
     */
    @Test
    void aHandlerStoppedBeforeItCompletesInItsTransactionCommitsNoneOfItsWrites() throws Exception {
        Skiplock client = client();
        Jdbc.update(client.dataSource(), "CREATE TABLE invoices (job_id TEXT PRIMARY KEY, amount INTEGER)");
        AtomicBoolean refused = new AtomicBoolean();
        // a lease that outlasts the test: on SQLite the handler's transaction holds the write lock the
        // heartbeat needs while it waits for the timeout
        Skiplock skiplock = started(builder(config -> config.queue("default", 1).leaseTtl(Duration.ofMinutes(2))
                .heartbeatInterval(Duration.ofMinutes(1)).reaperInterval(Duration.ofMinutes(1)))
                .handler("invoice", Flow.class, context -> {
                    context.inTransaction(connection -> {
                        insertInvoice(connection, context.job().id());
                        try {
                            ContractBase.blockUntilInterrupted(); // the timeout stops the execution
                        } catch (InterruptedException swallowed) {
                            // a handler that goes on regardless
                        }
                        try {
                            context.completeInTransaction(connection, "paid");
                        } catch (JobStateException stopped) {
                            refused.set(true);
                        }
                        insertInvoice(connection, java.util.UUID.randomUUID()); // and writes on regardless
                        return null;
                    });
                    return JobOutcome.complete("looks fine");
                }));

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("invoice").withMaxAttempts(1)
                .withTimeout(Duration.ofSeconds(1))).id(), WAIT);

        assertThat(done.status()).as(done.lastError()).isEqualTo(JobStatus.TIMED_OUT);
        await().atMost(WAIT).untilTrue(refused);
        assertThat(invoices(client)).isEmpty();
    }

    /**
     * A handler that catches the wait its signal wait began and then completes its job in its own
     * transaction: the attempt still ends with the wait (as JobSuspendedException says), and that
     * transaction's writes do not commit. Before, the job ended succeeded, its wait recorded, and
     * the wait's outcome was discarded as stale.
     */
    @Test
    void aCompletionInTheHandlersTransactionAfterItsWaitBeganIsRefused() throws Exception {
        Skiplock client = client();
        Jdbc.update(client.dataSource(), "CREATE TABLE invoices (job_id TEXT PRIMARY KEY, amount INTEGER)");
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        Skiplock skiplock = started(builder(config -> config.queue("default", 1))
                .handler("invoice", Flow.class, context -> {
                    try {
                        context.awaitSignal("approve", LONG_WAIT);
                    } catch (JobSuspendedException wait) {
                        refused.complete(invoicedInTransaction(context, "paid anyway"));
                        throw wait;
                    }
                    return JobOutcome.complete("approved");
                }));

        Job job = skiplock.enqueue(flow("invoice"));
        assertThat(refused.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("completeInTransaction:");
        Job waiting = await().atMost(WAIT).until(() -> skiplock.get(job.id()).orElseThrow(),
                current -> current.status() == JobStatus.QUEUED);
        assertThat(waiting.result()).isNull();
        assertThat(invoices(client)).isEmpty();
        assertThat(skiplock.metrics().staleCompletions()).isZero();

        skiplock.signal(job.id(), "approve", true);
        Job done = skiplock.awaitTerminal(job.id(), WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("approved");
    }

    /**
     * A timeout that falls due while the handler's transaction commits its completion waits for
     * that commit: if it rolls back, the handler runs on and the timeout ends it. Before, a check
     * that found the execution committing was dropped: a handler whose completion then rolled back
     * ran on past its limit (here, for good).
     */
    @Test
    void aTimeoutDueWhileTheCompletionCommitsEndsTheHandlerIfTheCommitRollsBack() throws Exception {
        AtomicBoolean committing = new AtomicBoolean();
        CountDownLatch checksWhileCommitting = new CountDownLatch(2);
        Skiplock skiplock = started(builder(config -> config.queue("default", 1)
                // a lease that outlasts the test (the heartbeat leaves a committing job's row alone),
                // and timer threads free for the timeout's checks (on SQLite, the heartbeat and the
                // reaper would wait for the write lock the handler's transaction holds)
                .leaseTtl(Duration.ofMinutes(2)).heartbeatInterval(Duration.ofMinutes(1)).reaperInterval(Duration.ofMinutes(1))
                .clock(new ReadByEngineClock("Timeouts", "check", () -> {
                    if (committing.get()) {
                        checksWhileCommitting.countDown();
                    }
                })))
                .handler("invoice", Flow.class, context -> {
                    try {
                        context.inTransaction(connection -> {
                            context.completeInTransaction(connection, "paid");
                            committing.set(true);
                            // a second check: the first, due, found the completion committing
                            awaitQuietly(checksWhileCommitting);
                            throw new IllegalStateException("payment provider said no");
                        });
                    } catch (IllegalStateException rolledBack) {
                        // the completion rolled back with it: the handler runs on
                    }
                    ContractBase.blockUntilInterrupted(); // the hang under test; the timeout must end it
                    return JobOutcome.complete();
                }));

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("invoice").withTimeout(Duration.ofSeconds(1))
                .withMaxAttempts(1)).id(), WAIT);

        assertThat(committing).as("the completion was committing when the timeout fell due").isTrue();
        assertThat(done.status()).isEqualTo(JobStatus.TIMED_OUT);
        assertThat(done.lastError()).isEqualTo("timed out after 1s in attempt 1");
    }

    /** Waits for {@code latch} at most {@link #WAIT}; an interrupt ends the wait. */
    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aStaleExecutionCannotCompleteInItsTransactionAndItsWritesRollBack() throws Exception {
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        Skiplock client = client();
        Skiplock skiplock = staleInvoicer(client, context -> {
            refused.complete(invoicedInTransaction(context, "paid")); // whatever it is, the assertion below shows it
            return JobOutcome.complete();
        });

        Job job = skiplock.enqueue(flow("invoice").withMaxAttempts(1));

        assertThat(refused.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(JobStateException.class)
                .hasMessageContaining("no longer holds its lease");
        assertThat(invoices(client)).isEmpty();
        assertThat(skiplock.get(job.id()).orElseThrow().status()).isNotEqualTo(JobStatus.SUCCEEDED);
    }

    /**
     * A stale handler that catches the refusal of its completion and goes on writing in the same
     * transaction commits none of it: its transaction is rolled back when it ends, as a stopped
     * execution's is. Before, the refusal rolled back at once and what the handler wrote next (here
     * a second invoice) committed in a new transaction (on SQLite, the driver's rollback also began
     * that transaction, taking the write lock again).
     */
    @Test
    void aStaleHandlerThatGoesOnAfterItsRefusedCompletionCommitsNoneOfItsWrites() throws Exception {
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        Skiplock client = client();
        Skiplock skiplock = staleInvoicer(client, context -> {
            AtomicReference<Throwable> refusal = new AtomicReference<>();
            context.inTransaction(connection -> {
                insertInvoice(connection, context.job().id());
                try {
                    context.completeInTransaction(connection, "paid");
                } catch (JobStateException e) {
                    refusal.set(e);
                    insertInvoice(connection, UUID.randomUUID()); // goes on in the same transaction
                }
                return null;
            });
            refused.complete(refusal.get());
            return JobOutcome.complete();
        });

        Job job = skiplock.enqueue(flow("invoice").withMaxAttempts(1));

        assertThat(refused.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(JobStateException.class)
                .hasMessageContaining("no longer holds its lease");
        assertThat(invoices(client)).as("invoices a stale execution wrote").isEmpty();
        assertThat(skiplock.get(job.id()).orElseThrow().status()).isNotEqualTo(JobStatus.SUCCEEDED);
    }

    /**
     * A handler that turned autocommit on inside its transaction cannot complete in it: its writes
     * committed statement by statement, and on SQLite the completion's savepoint then opened a
     * transaction nothing ended (the connection went back to the pool holding the write lock).
     * The job then runs on as any other; the database takes writes after it (second reader).
     */
    @Test
    void aCompletionOnAConnectionTurnedBackToAutocommitIsRefused() throws Exception {
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        Skiplock skiplock = worker("invoice", context -> {
            context.inTransaction(connection -> {
                connection.setAutoCommit(true);
                try {
                    context.completeInTransaction(connection, "paid");
                    refused.complete(null);
                } catch (IllegalStateException e) {
                    refused.complete(e);
                }
                return null;
            });
            return JobOutcome.complete("returned");
        });

        Job job = skiplock.enqueue(flow("invoice"));

        assertThat(refused.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("autocommit");
        assertThat(skiplock.awaitTerminal(job.id(), WAIT).result().asText()).isEqualTo("returned");
        Job after = skiplock.enqueue(flow("invoice"));
        assertThat(skiplock.awaitTerminal(after.id(), WAIT).status()).as("a job after it").isEqualTo(JobStatus.SUCCEEDED);
    }

    // A handler that catches the refusal inside its transaction and goes on used to leave its
    // execution committing, where no stop reaches it: its lost lease then never stopped it.
    @Test
    void anExecutionWhoseCompletionInItsTransactionWasRefusedCanStillBeStopped() throws Exception {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        Skiplock client = client();
        Skiplock skiplock = worker("invoice", context -> {
            database.stealLease(client.dataSource(), context.job().id(), "another-worker"); // now stale
            try {
                context.inTransaction(connection -> {
                    try {
                        context.completeInTransaction(connection, "paid");
                    } catch (JobStateException refused) {
                        // goes on with other work in the same transaction (rolled back when it ends)
                    }
                    return null;
                });
            } catch (InterruptedException stoppedFirst) {
                // A heartbeat between the steal and the transaction found the lease gone first and
                // stopped the execution while inTransaction waited for the completer (its wait for
                // earlier log lines is interruptible): stopped all the same. Before, this path threw
                // past the recording, and the test waited out its 30 s (seen once in a clean-clone CI).
                interrupted.complete(true);
                throw stoppedFirst;
            }
            blockRecordingTheStop(interrupted);
            return JobOutcome.complete();
        });

        skiplock.enqueue(flow("invoice").withMaxAttempts(1));

        // the heartbeat finds the lease gone and stops the execution
        assertThat(interrupted.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }

    // The same, when the completion's statement itself fails (here at its preparation) and the
    // handler catches the failure: the execution was left committing, where no stop reaches it.
    @Test
    void anExecutionWhoseCompletionInItsTransactionFailedCanStillBeStopped() throws Exception {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        Skiplock client = client();
        AtomicBoolean armed = new AtomicBoolean();
        String completeJobs = BeforeStatement.sql(client, "jobs", "complete_jobs");
        javax.sql.DataSource failingOnce = BeforeStatement.onceArmed(client.dataSource(), completeJobs, armed, () -> {
            throw new SQLException("the test's failure of complete_jobs", "XX000");
        });
        Skiplock skiplock = started(Skiplock.builder().dataSource(failingOnce)
                .config(fastConfig().queue("default", 4).build()).handler("invoice", Flow.class, context -> {
                    context.inTransaction(connection -> {
                        armed.set(true);
                        try {
                            context.completeInTransaction(connection, "paid");
                            failed.complete(null);
                        } catch (RuntimeException failure) {
                            failed.complete(failure); // goes on with other work in the same transaction, which commits
                        }
                        return null;
                    });
                    database.stealLease(client.dataSource(), context.job().id(), "another-worker"); // now stale
                    blockRecordingTheStop(interrupted);
                    return JobOutcome.complete();
                }));

        skiplock.enqueue(flow("invoice").withMaxAttempts(1));

        assertThat(failed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the completion's failure").isNotNull();
        // the heartbeat finds the lease gone and stops the execution
        assertThat(interrupted.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    /** One transaction of a handler at a time: a second inside the first is refused, and the first commits. */
    @Test
    void inTransactionDoesNotNest() throws Exception {
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        Skiplock skiplock = worker("nested", context -> JobOutcome.complete(context.inTransaction(outer -> {
            try {
                context.inTransaction(inner -> "inner");
                refused.complete(null);
            } catch (IllegalStateException e) {
                refused.complete(e);
            }
            return "outer";
        })));

        Job done = skiplock.awaitTerminal(skiplock.enqueue(flow("nested")).id(), WAIT);

        // (before, on SQLite, the inner transaction waited for the outer's write lock for good)
        assertThat(refused.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("inTransaction:");
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("outer");
    }

    /** Blocks the handler until the engine interrupts it (true) or an hour passes (false). */
    private static void blockRecordingTheStop(CompletableFuture<Boolean> interrupted) {
        try {
            blockUntilInterrupted();
            interrupted.complete(false);
        } catch (InterruptedException stopped) {
            interrupted.complete(true);
        }
    }

    /**
     * A worker of "invoice" jobs (an invoices table made for them) whose {@code handler} runs each
     * job after its lease was taken by another worker. No heartbeat within the test: the
     * transaction's fence alone must refuse. A heartbeat that found the lease gone first stopped the
     * execution, which then never reached the refusal (CI hung so).
     */
    Skiplock staleInvoicer(Skiplock client, dev.skiplock.JobHandler<Flow> handler) {
        Jdbc.update(client.dataSource(), "CREATE TABLE invoices (job_id TEXT PRIMARY KEY, amount INTEGER)");
        return started(builder(config -> config.queue("default", 4)
                .heartbeatInterval(Duration.ofSeconds(30)).leaseTtl(Duration.ofMinutes(1)))
                .handler("invoice", Flow.class, context -> {
                    database.stealLease(client.dataSource(), context.job().id(), "another-worker"); // now stale
                    return handler.handle(context);
                }));
    }

    /**
     * Writes the job's invoice and completes the job in the handler's transaction; returns what
     * that threw (a refusal), or null.
     */
    private static Throwable invoicedInTransaction(JobContext<Flow> context, String result) throws Exception {
        try {
            context.inTransaction(connection -> {
                insertInvoice(connection, context.job().id());
                context.completeInTransaction(connection, result);
                return null;
            });
            return null;
        } catch (RuntimeException | SQLException refusal) {
            return refusal;
        }
    }

    private static void insertInvoice(Connection connection, UUID jobId) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO invoices VALUES (?, 100)")) {
            insert.setString(1, jobId.toString());
            insert.executeUpdate();
        }
    }

    private static List<String> invoices(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT job_id FROM invoices", row -> row.getString(1));
    }

    @Test
    void inMemoryJobsKeepStepsAndSleepsAndRefuseWhatNeedsTheDatabase() throws Exception {
        Skiplock skiplock = track(builder(config -> { }).handler("local", Flow.class, context -> {
            String first = context.step("first", String.class, counted("first", () -> "1"));
            context.sleep("pause", Duration.ofMillis(200));
            if (context.args().label().equals("signal")) {
                context.awaitSignal("go", LONG_WAIT);
            }
            if (context.args().label().equals("transaction")) {
                context.inTransaction(connection -> null);
            }
            return JobOutcome.complete(first + context.step("second", String.class, counted("second", () -> "2")));
        }).build());

        Job done = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("local", new Flow("plain"))
                .withDurable(false)).id(), WAIT);
        Job signal = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("local", new Flow("signal"))
                .withDurable(false).withMaxAttempts(1)).id(), WAIT);
        Job transaction = skiplock.awaitTerminal(skiplock.enqueue(JobRequest.of("local", new Flow("transaction"))
                .withDurable(false).withMaxAttempts(1)).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("12");
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(stepEvents(skiplock, done.id())).containsExactly("first:started", "first:succeeded", "pause:waiting",
                "second:started", "second:succeeded");
        assertThat(ranCount("first")).isEqualTo(3); // once per job
        assertThat(signal.lastError()).contains("awaitSignal: an in-memory job cannot wait for a signal");
        assertThat(transaction.lastError()).contains("inTransaction: an in-memory job has no database");
        assertThatThrownBy(() -> skiplock.signal(signal.id(), "go", null)).isInstanceOf(dev.skiplock.JobNotFoundException.class);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
