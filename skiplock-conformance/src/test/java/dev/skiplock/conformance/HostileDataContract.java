package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What one job carries never blocks another job's outcome (issue #10, fault 1): NUL characters,
 * lone surrogates and invalid UTF-8 a job produces are stored replaced, and a batch the database still
 * rejects for one job's data is split until only that job is affected. An enqueue that carries them
 * in its args or metadata is refused naming the field.
 */
abstract class HostileDataContract extends ContractBase {

    record Work(String label) {
    }

    /**
     * A NUL character or a lone surrogate in what an enqueue gives is refused by name, on every
     * database (PostgreSQL could not store it) and on every insert path, and nothing is inserted.
     */
    @Test
    void anEnqueueWhoseArgsOrMetadataCannotBeStoredIsRefusedNamingTheFieldAndInsertsNothing() {
        Skiplock client = client();
        JobRequest nulInArgs = JobRequest.of("hostile", java.util.Map.of("text", "a\u0000b"));
        JobRequest surrogateInAKey = JobRequest.of("hostile", java.util.Map.of("\uD800", 1));
        JobRequest nulInMetadata = JobRequest.of("hostile", null).withMetadata(java.util.Map.of("note", "\u0000"));
        List<JobRequest> largeBatch = new java.util.ArrayList<>();
        for (int i = 0; i < 150; i++) {
            largeBatch.add(i == 149 ? nulInArgs : JobRequest.of("fine", null));
        }

        assertThatThrownBy(() -> client.enqueue(nulInArgs)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("args:");
        assertThatThrownBy(() -> client.enqueue(surrogateInAKey)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("args:");
        assertThatThrownBy(() -> client.enqueue(nulInMetadata)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("metadata:");
        assertThatThrownBy(() -> client.enqueueMany(List.of(JobRequest.of("fine", null), nulInArgs)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("jobs[1].args:");
        assertThatThrownBy(() -> client.enqueueMany(largeBatch)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("jobs[149].args:");
        assertThatThrownBy(() -> client.enqueue(nulInArgs.withDurable(false)))
                .as("an in-memory job is held to the same rule").isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("args:");
        assertThatThrownBy(() -> client.enqueueOrReuse(nulInMetadata.withDurable(false)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("metadata:");
        try (dev.skiplock.server.SkiplockServer server = dev.skiplock.server.SkiplockServer.start(client,
                new dev.skiplock.server.ServerConfig("127.0.0.1", 0, 1024 * 1024, false, java.util.Map.of()))) {
            Http.Answer refused = new Http(server.port()).post("/api/v1/jobs",
                    "{\"kind\": \"hostile\", \"args\": {\"text\": \"a\\u0000b\"}}");
            assertThat(refused.status()).as(refused.text()).isEqualTo(400);
            assertThat(refused.json().path("error").path("field").asText()).isEqualTo("args");
        }
        assertThat(client.list(dev.skiplock.JobQuery.all()).jobs()).isEmpty();
        assertThat(client.enqueue(JobRequest.of("fine", java.util.Map.of("text", "a\uD83D\uDE00b"))).status())
                .as("a surrogate pair is storable").isEqualTo(JobStatus.QUEUED);
    }

    /**
     * Args or metadata nested deeper than 100 levels are refused naming the field, through the API
     * and the library, and nothing is inserted; 100 levels are stored. Before, args 998 levels deep
     * were taken (201), and every job list holding that job answered 500: wrapped in the list's
     * answer, they were deeper than the JSON writer goes (API reviewer).
     */
    @Test
    void argsOrMetadataNestedTooDeepAreRefusedNamingTheField() {
        Skiplock client = client();
        String deepArgs = "[".repeat(998) + "]".repeat(998);
        try (dev.skiplock.server.SkiplockServer server = dev.skiplock.server.SkiplockServer.start(client,
                new dev.skiplock.server.ServerConfig("127.0.0.1", 0, 1024 * 1024, false, java.util.Map.of()))) {
            Http http = new Http(server.port());
            Http.Answer refused = http.post("/api/v1/jobs", "{\"kind\": \"hostile\", \"args\": " + deepArgs + "}");
            assertThat(refused.status()).as(refused.text()).isEqualTo(400);
            assertThat(refused.json().path("error").path("field").asText()).isEqualTo("args");
            assertThat(http.get("/api/v1/jobs").status()).isEqualTo(200);
        }
        JsonNode hundredLevels = Json.read("[".repeat(100) + "]".repeat(100));
        JsonNode tooDeep = Json.read("[".repeat(101) + "]".repeat(101));
        assertThatThrownBy(() -> client.enqueue(JobRequest.of("hostile", tooDeep)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("args:");
        assertThatThrownBy(() -> client.enqueue(JobRequest.of("hostile", null).withMetadata(java.util.Map.of("note", tooDeep))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("metadata:");
        assertThat(client.list(dev.skiplock.JobQuery.all()).jobs()).isEmpty();
        assertThat(client.enqueue(JobRequest.of("hostile", hundredLevels)).args()).isEqualTo(hundredLevels);
    }

    /**
     * A handler's result or progress nested deeper than 100 levels harms only its job: the progress is
     * refused to the handler naming it, the result fails the job naming it, and the job list answers.
     * Before, both were stored, and every job list holding the job answered 500 (second reader).
     */
    @Test
    void aResultOrProgressNestedTooDeepHarmsOnlyItsJob() {
        JsonNode tooDeep = Json.read("[".repeat(101) + "]".repeat(101));
        java.util.concurrent.atomic.AtomicReference<String> progressRefused = new java.util.concurrent.atomic.AtomicReference<>();
        Skiplock worker = started(builder(config -> config.queue("default", 4))
                .handler("deep", Work.class, context -> {
                    try {
                        context.progress(tooDeep);
                    } catch (IllegalArgumentException e) {
                        progressRefused.set(e.getMessage());
                    }
                    return JobOutcome.complete(tooDeep);
                }));
        Job deep = worker.enqueue(JobRequest.of("deep", new Work("deep")).withMaxAttempts(1));

        Job ended = awaitTerminal(worker, deep.id());
        assertThat(ended.status()).isEqualTo(JobStatus.FAILED);
        assertThat(ended.lastError()).contains("result: nests arrays and objects deeper than 100 levels");
        assertThat(ended.progress()).isNull();
        assertThat(progressRefused.get()).startsWith("progress: nests arrays and objects deeper than 100 levels");
        try (dev.skiplock.server.SkiplockServer server = dev.skiplock.server.SkiplockServer.start(worker,
                new dev.skiplock.server.ServerConfig("127.0.0.1", 0, 1024 * 1024, false, java.util.Map.of()))) {
            assertThat(new Http(server.port()).get("/api/v1/jobs").status()).isEqualTo(200);
        }
    }

    // Fault 1: what one job carries never blocks another job's outcome.
    @Test
    void nulBytesAndLoneSurrogatesInOutcomesLogsAndProgressHarmOnlyTheirJob() {
        Skiplock worker = started(builder(config -> config.queue("default", 4))
                .handler("hostile", Work.class, context -> {
                    context.log("stdout", "a\u0000b");
                    context.log("stderr", "\uD800x");
                    assertThat(context.progress(java.util.Map.of("p", "x\u0000"))).isTrue();
                    if (context.args().label().equals("throw")) {
                        throw new IllegalStateException("boom\u0000\uDC00");
                    }
                    return JobOutcome.complete(java.util.Map.of("r\u0000", "\u0000"));
                })
                .handler("work", Work.class, context -> JobOutcome.complete("fine")));
        Job returns = worker.enqueue(JobRequest.of("hostile", new Work("return")));
        Job throwing = worker.enqueue(JobRequest.of("hostile", new Work("throw")).withMaxAttempts(1));
        Job healthy = worker.enqueue(JobRequest.of("work", new Work("fine")));

        assertThat(awaitTerminal(worker, healthy.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        Job returned = awaitTerminal(worker, returns.id());
        assertThat(returned.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(returned.result().path("r\uFFFD").asText()).isEqualTo("\uFFFD");
        Job thrown = awaitTerminal(worker, throwing.id());
        assertThat(thrown.status()).isEqualTo(JobStatus.FAILED);
        assertThat(thrown.lastError()).endsWith("boom\uFFFD\uFFFD");
        for (Job job : List.of(returns, throwing)) {
            assertThat(worker.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("log"))
                    .extracting(event -> event.stream() + ":" + event.message())
                    .containsExactly("stdout:a\uFFFDb", "stderr:\uFFFDx"); // each line once
            assertThat(worker.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("progress"))
                    .extracting(event -> event.data().path("p").asText()).containsExactly("x\uFFFD");
        }
    }

    /**
     * A handler that logs faster than its lines are written (here: not at all, the statement that
     * writes them waits) waits in {@code log} once its share of the completer's queue is spent,
     * instead of filling the heap every job shares; once the writes go on, every line is stored.
     * Before, the handler's 10 MB went into the queue at once.
     */
    @Test
    void aHandlerThatLogsFasterThanItsLinesAreWrittenWaitsAndLosesNothing() throws Exception {
        int lines = 1000;
        String text = "x".repeat(10_000);
        java.util.concurrent.CountDownLatch mayWrite = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger logged = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Thread> handler = new java.util.concurrent.atomic.AtomicReference<>();
        Skiplock client = client();
        javax.sql.DataSource held = BeforeStatement.eachTime(client.dataSource(),
                BeforeStatement.sql(client, "events", "append_logs"), () -> {
                    if (armed.get()) {
                        mayWrite.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                    }
                });
        try {
            Skiplock worker = started(Skiplock.builder().dataSource(held).config(fastConfig().leaseTtl(WAIT.multipliedBy(2))
                    .queue("default", 1).build()).handler("chatty", Work.class, context -> {
                        handler.set(Thread.currentThread());
                        for (int i = 0; i < lines; i++) {
                            context.log("stdout", text);
                            logged.incrementAndGet();
                        }
                        return JobOutcome.complete();
                    }));
            armed.set(true);
            java.util.UUID id = worker.enqueue(JobRequest.of("chatty", new Work("x"))).id();

            await().atMost(WAIT).until(() -> logged.get() == lines || waitsInLog(handler.get()));
            assertThat(logged.get()).as("lines handed over while none could be written").isLessThan(lines);

            mayWrite.countDown();
            assertThat(worker.awaitTerminal(id, WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
            long stored = 0;
            for (List<dev.skiplock.JobEvent> page = worker.events(id, 0, 1000); !page.isEmpty();
                    page = worker.events(id, page.getLast().seq(), 1000)) {
                stored += page.stream().filter(event -> event.type().equals("log")).count();
            }
            assertThat(stored).isEqualTo(lines);
        } finally {
            mayWrite.countDown();
        }
    }

    /**
     * A line logged in the handler's own transaction is written with its completion and never waits
     * for room in the completer's queue: that room may be held by lines another thread of the
     * handler logged just before the transaction began, which the completer cannot write while the
     * transaction holds SQLite's write lock. Forced: those lines are logged after the transaction's
     * wait for earlier lines and before it begins, and their write waits until it has begun. Before,
     * the line waited for room that only the transaction's end could make, and the job hung.
     */
    @Test
    void aLineLoggedInTheHandlersTransactionDoesNotWaitForTheQueue() throws Exception {
        java.util.concurrent.CountDownLatch began = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean linesWait = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Thread> beginning = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<dev.skiplock.JobContext<Work>> handler =
                new java.util.concurrent.atomic.AtomicReference<>();
        Skiplock client = client();
        javax.sql.DataSource held = BeforeStatement.eachTime(client.dataSource(),
                BeforeStatement.sql(client, "events", "append_logs"), () -> {
                    if (linesWait.get()) {
                        began.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                    }
                });
        javax.sql.DataSource pool = BeforeStatement.onceArmedBeginning(held, beginning, () -> {
            linesWait.set(true);
            Thread other = Thread.ofVirtual().start(() -> { // another thread of the handler
                for (int i = 0; i < 100; i++) {
                    handler.get().log("stdout", "x".repeat(10_000)); // nearly all of the queue's room for this execution
                }
            });
            other.join();
        });
        Skiplock worker = started(Skiplock.builder().dataSource(pool).config(fastConfig().leaseTtl(WAIT.multipliedBy(2))
                .queue("default", 1).build()).handler("chatty", Work.class, context -> {
                    handler.set(context);
                    beginning.set(Thread.currentThread());
                    context.inTransaction(connection -> {
                        began.countDown();
                        context.log("stdout", "y".repeat(50_000)); // more than the room left
                        context.completeInTransaction(connection, "done");
                        return null;
                    });
                    return JobOutcome.complete();
                }));
        java.util.UUID id = worker.enqueue(JobRequest.of("chatty", new Work("x"))).id();

        Job done = worker.awaitTerminal(id, WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("done");
    }

    /**
     * A handler whose thread's interrupt is set (winding down after a stop, its lease still held)
     * still has its lines written while there is room for them. Before, every such line was dropped.
     */
    @Test
    void aLineLoggedWithTheInterruptSetIsWritten() {
        Skiplock worker = started(builder(config -> config.queue("default", 1)).handler("tidy", Work.class, context -> {
            Thread.currentThread().interrupt();
            context.log("stdout", "cleaned up");
            Thread.interrupted();
            return JobOutcome.complete();
        }));
        java.util.UUID id = worker.enqueue(JobRequest.of("tidy", new Work("x"))).id();

        assertThat(awaitTerminal(worker, id).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(worker.events(id, 0, 100)).extracting(dev.skiplock.JobEvent::message).contains("cleaned up");
    }

    /** Whether {@code thread} waits for room in its execution's share of the completer's queue. */
    private static boolean waitsInLog(Thread thread) {
        return thread != null && java.util.Arrays.stream(thread.getStackTrace())
                .anyMatch(frame -> frame.getClassName().endsWith(".LogBudget"));
    }

    /**
     * An outcome's texts reach the row as they were, also those that mean something in an array
     * literal or in JSON: PostgreSQL's complete_jobs takes a batch's results and errors as arrays of
     * text, in which the driver must quote braces, quotes, commas, backslashes and the word NULL.
     */
    @Test
    void outcomesKeepTheCharactersOfAnArrayLiteralAsTheyWere() {
        String text = "{a,\"b\"}\\ NULL\n)";
        Skiplock worker = started(builder(config -> config.queue("default", 4))
                .handler("literal", Work.class, context -> switch (context.args().label()) {
                    case "null" -> JobOutcome.fail("NULL");
                    case "fail" -> JobOutcome.fail(text);
                    default -> JobOutcome.complete(java.util.Map.of(text, text, "NULL", "NULL"));
                }));
        Job returns = worker.enqueue(JobRequest.of("literal", new Work("complete")));
        Job failsNull = worker.enqueue(JobRequest.of("literal", new Work("null")).withMaxAttempts(1));
        Job fails = worker.enqueue(JobRequest.of("literal", new Work("fail")).withMaxAttempts(1));

        Job returned = awaitTerminal(worker, returns.id());
        assertThat(returned.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(returned.result().path(text).asText()).isEqualTo(text);
        assertThat(returned.result().path("NULL").asText()).isEqualTo("NULL");
        Job failedNull = awaitTerminal(worker, failsNull.id());
        assertThat(failedNull.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failedNull.lastError()).isEqualTo("NULL");
        Job failed = awaitTerminal(worker, fails.id());
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.lastError()).isEqualTo(text);
    }

    /**
     * A handler's exception whose message cannot be read (its getMessage throws) ends its attempt
     * like any other exception. Reading the message to describe the error used to throw on the
     * handler's thread: the job was left running with its lease kept alive, and its slot was never
     * given back.
     */
    @Test
    void anExceptionWhoseMessageCannotBeReadFailsOnlyItsJob() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("hostile", Work.class, context -> {
                    throw new IllegalStateException() {
                        @Override
                        public String getMessage() {
                            throw new UnsupportedOperationException("no message today");
                        }
                    };
                })
                .handler("work", Work.class, context -> JobOutcome.complete("fine")));
        Job hostile = worker.enqueue(JobRequest.of("hostile", new Work("x")).withMaxAttempts(1));

        Job failed = awaitTerminal(worker, hostile.id());
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.lastError()).contains(UnsupportedOperationException.class.getName());
        // its one slot was given back: the next job runs
        Job next = worker.enqueue(JobRequest.of("work", new Work("y")));
        assertThat(awaitTerminal(worker, next.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    /**
     * A resumable handler's clean-up after a durable outcome that throws an exception whose message
     * cannot be read is logged: describing it threw on the completer's thread, which then wrote the
     * batch again and counted the outcomes it had just written as stale.
     */
    @Test
    void aCleanUpThatThrowsAnUnreadableExceptionLeavesTheOutcomesCounted() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("resumable", Work.class, withCleanUp(() -> {
                    throw new IllegalStateException() {
                        @Override
                        public String getMessage() {
                            throw new UnsupportedOperationException("no message today");
                        }
                    };
                })));
        Job first = worker.enqueue(JobRequest.of("resumable", new Work("first")));
        assertThat(awaitTerminal(worker, first.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        Job second = worker.enqueue(JobRequest.of("resumable", new Work("second")));
        assertThat(awaitTerminal(worker, second.id()).status()).isEqualTo(JobStatus.SUCCEEDED);

        awaitCount(() -> worker.metrics().succeeded(), 2);
        assertThat(worker.metrics().staleCompletions()).isZero();
    }

    /**
     * A resumable handler's clean-up that throws an {@code Error} (an {@code assert} in application
     * code) stops no later outcome: it ran on the completer's thread, which the error killed, and
     * then no outcome of the worker was written while the heartbeat kept every lease alive.
     */
    @Test
    void aCleanUpThatThrowsAnErrorStopsNoLaterOutcome() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("resumable", Work.class, withCleanUp(() -> {
                    throw new AssertionError("clean-up expected something else");
                })));
        for (String label : List.of("first", "second", "third")) {
            Job job = worker.enqueue(JobRequest.of("resumable", new Work(label)));
            assertThat(awaitTerminal(worker, job.id()).result().asText()).isEqualTo(label);
        }
        awaitCount(() -> worker.metrics().succeeded(), 3);
        assertThat(worker.metrics().staleCompletions()).isZero();
    }

    /**
     * An application's tracer that throws when a job's span starts (the first job) or ends (the
     * second) harms no job: each runs and gets its outcome (the handler's thread used to die,
     * leaving the job running with its lease kept alive and its slot taken).
     */
    @Test
    void aTracerThatThrowsHarmsNoJob() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .openTelemetry(ThrowingTracer.openTelemetry())
                .handler("work", Work.class, context -> JobOutcome.complete(context.args().label())));
        Job first = worker.enqueue(JobRequest.of("work", new Work("first")));
        Job second = worker.enqueue(JobRequest.of("work", new Work("second")));

        assertThat(awaitTerminal(worker, first.id()).result().asText()).isEqualTo("first");
        assertThat(awaitTerminal(worker, second.id()).result().asText()).isEqualTo("second");
        // an in-memory job runs on the same tracer: its span's end throws too
        Job inMemory = worker.enqueue(JobRequest.of("work", new Work("third")).withDurable(false));
        assertThat(awaitTerminal(worker, inMemory.id()).result().asText()).isEqualTo("third");
    }

    /**
     * A span that cannot be made current (odd spans), or whose scope throws when it closes (even
     * spans), harms no job either (failed without JobThreadContext: the handler's thread died with
     * its job left running, its lease kept alive by the heartbeat).
     */
    @Test
    void aSpanWhoseContextCannotBeEnteredOrLeftHarmsNoJob() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .openTelemetry(ThrowingTracer.contextFailing())
                .handler("work", Work.class, context -> JobOutcome.complete(context.args().label())));
        Job first = worker.enqueue(JobRequest.of("work", new Work("first")));
        assertThat(awaitTerminal(worker, first.id()).result().asText()).isEqualTo("first");
        Job second = worker.enqueue(JobRequest.of("work", new Work("second")));
        assertThat(awaitTerminal(worker, second.id()).result().asText()).isEqualTo("second");
        Job inMemory = worker.enqueue(JobRequest.of("work", new Work("third")).withDurable(false));
        assertThat(awaitTerminal(worker, inMemory.id()).result().asText()).isEqualTo("third");
        Job inMemoryToo = worker.enqueue(JobRequest.of("work", new Work("fourth")).withDurable(false));
        assertThat(awaitTerminal(worker, inMemoryToo.id()).result().asText()).isEqualTo("fourth");
    }

    /** A resumable handler that completes with its label and runs {@code cleanUp} after each durable outcome. */
    private static dev.skiplock.ResumableHandler<Work> withCleanUp(Runnable cleanUp) {
        return new dev.skiplock.ResumableHandler<>() {
            @Override
            public JobOutcome handle(dev.skiplock.JobContext<Work> context) {
                return JobOutcome.complete(context.args().label());
            }

            @Override
            public java.util.Optional<JobOutcome> resume(dev.skiplock.JobContext<Work> context) {
                return java.util.Optional.empty();
            }

            @Override
            public void completed(java.util.UUID jobId, java.util.UUID executionId) {
                cleanUp.run();
            }
        };
    }

    /**
     * An OpenTelemetry whose tracer throws when asked for the first span, and whose later spans
     * throw when they end.
     */
    private static final class ThrowingTracer {
        static io.opentelemetry.api.OpenTelemetry openTelemetry() {
            java.util.concurrent.atomic.AtomicInteger spans = new java.util.concurrent.atomic.AtomicInteger();
            io.opentelemetry.api.trace.Span span = proxy(io.opentelemetry.api.trace.Span.class, (self, name) -> switch (name) {
                case "end" -> throw new IllegalStateException("tracer broken: end");
                case "makeCurrent" -> io.opentelemetry.context.Scope.noop();
                case "getSpanContext" -> io.opentelemetry.api.trace.SpanContext.getInvalid();
                case "isRecording" -> false;
                default -> self;
            });
            io.opentelemetry.api.trace.SpanBuilder builder = proxy(io.opentelemetry.api.trace.SpanBuilder.class,
                    (self, name) -> name.equals("startSpan") ? span : self);
            io.opentelemetry.api.trace.Tracer tracer = proxy(io.opentelemetry.api.trace.Tracer.class, (self, name) -> {
                if (spans.getAndIncrement() == 0) {
                    throw new IllegalStateException("tracer broken: " + name);
                }
                return builder;
            });
            return withTracer(tracer);
        }

        /**
         * An OpenTelemetry whose odd spans throw when made current and whose even spans make current
         * a scope that throws when it closes.
         */
        static io.opentelemetry.api.OpenTelemetry contextFailing() {
            io.opentelemetry.context.Scope failingScope = proxy(io.opentelemetry.context.Scope.class, (self, name) -> {
                throw new IllegalStateException("context storage broken: " + name);
            });
            java.util.concurrent.atomic.AtomicInteger spans = new java.util.concurrent.atomic.AtomicInteger();
            io.opentelemetry.api.trace.SpanBuilder builder = proxy(io.opentelemetry.api.trace.SpanBuilder.class,
                    (self, name) -> {
                        if (!name.equals("startSpan")) {
                            return self;
                        }
                        boolean odd = spans.incrementAndGet() % 2 == 1;
                        return proxy(io.opentelemetry.api.trace.Span.class, (span, method) -> switch (method) {
                            case "makeCurrent" -> {
                                if (odd) {
                                    throw new IllegalStateException("context storage broken: makeCurrent");
                                }
                                yield failingScope;
                            }
                            case "getSpanContext" -> io.opentelemetry.api.trace.SpanContext.getInvalid();
                            case "isRecording" -> false;
                            case "end" -> null;
                            default -> span;
                        });
                    });
            io.opentelemetry.api.trace.Tracer tracer = proxy(io.opentelemetry.api.trace.Tracer.class, (self, name) -> builder);
            return withTracer(tracer);
        }

        /** An OpenTelemetry whose every tracer is {@code tracer}, with no propagation. */
        private static io.opentelemetry.api.OpenTelemetry withTracer(io.opentelemetry.api.trace.Tracer tracer) {
            io.opentelemetry.api.trace.TracerProvider provider =
                    proxy(io.opentelemetry.api.trace.TracerProvider.class, (self, name) -> tracer);
            return new io.opentelemetry.api.OpenTelemetry() {
                @Override
                public io.opentelemetry.api.trace.TracerProvider getTracerProvider() {
                    return provider;
                }

                @Override
                public io.opentelemetry.context.propagation.ContextPropagators getPropagators() {
                    return io.opentelemetry.context.propagation.ContextPropagators.noop();
                }
            };
        }

        /** A {@code type} whose every method answers what {@code answer} gives for its name. */
        private static <T> T proxy(Class<T> type, java.util.function.BiFunction<Object, String, Object> answer) {
            return type.cast(java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                    (self, method, args) -> method.getName().equals("toString") ? "throwing " + type.getSimpleName()
                            : answer.apply(self, method.getName())));
        }
    }

    @Test
    void batchTheDatabaseRejectsForOneJobsDataIsSplitAndOnlyThatJobIsAffected() {
        Skiplock pool = client();
        DataSource rejecting = LostAnswers.rejecting(pool.dataSource(), "POISON");
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = track(Skiplock.builder().dataSource(rejecting).config(fastConfig().queue("default", 4).build())
                .handler("work", Work.class, context -> {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS); // all four finish together: one batch
                    context.log("stdout", "line of " + context.args().label());
                    if (context.args().label().equals("bad-log")) {
                        context.log("stdout", "POISON");
                    }
                    return JobOutcome.complete(context.args().label().equals("bad-result") ? "POISON" : "ok");
                }).build()).start();
        List<Job> jobs = pool.enqueueMany(List.of(JobRequest.of("work", new Work("good")),
                JobRequest.of("work", new Work("bad-log")), JobRequest.of("work", new Work("bad-result")),
                JobRequest.of("work", new Work("fine"))));
        await().atMost(WAIT).until(() -> pool.list(dev.skiplock.JobQuery.all().withStatus(JobStatus.RUNNING))
                .jobs().size() == 4);
        release.countDown();

        List<Job> done = jobs.stream().map(job -> awaitTerminal(pool, job.id())).toList();
        assertThat(done).extracting(job -> job.status()).containsExactly(JobStatus.SUCCEEDED, JobStatus.SUCCEEDED,
                JobStatus.FAILED, JobStatus.SUCCEEDED);
        assertThat(done.get(2).lastError()).isEqualTo("the outcome (succeeded) could not be stored");
        for (Job job : done) {
            List<String> lines = pool.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("log"))
                    .map(dev.skiplock.JobEvent::message).toList();
            if (job.id().equals(jobs.get(1).id())) {
                assertThat(lines).containsExactly("line of bad-log",
                        "[skiplock: a log line of 6 characters could not be stored]");
            } else {
                assertThat(lines).hasSize(1).allMatch(line -> line.startsWith("line of ")); // written once
            }
        }
    }

    @Test
    void nulBytesAndInvalidUtf8InACommandsOutputAreStoredReplaced() throws Exception {
        java.nio.file.Path runs = java.nio.file.Files.createTempDirectory("skiplock-runs-");
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("command", com.fasterxml.jackson.databind.JsonNode.class,
                        dev.skiplock.server.SkiplockServer.commandRunner(runs)));
        String script = "printf 'a\\000b\\377c\\n'; printf 'x\\000\\n' >&2; printf 'no newline \\000'";
        Job job = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c", script)))
                .withMaxAttempts(1));
        Job next = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("true"))));

        assertThat(awaitTerminal(worker, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(awaitTerminal(worker, next.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(worker.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("log"))
                .extracting(event -> event.stream() + ":" + event.message())
                .containsExactlyInAnyOrder("stdout:a\uFFFDb\uFFFDc", "stderr:x\uFFFD", "stdout:no newline \uFFFD");
    }

    /**
     * A command that prints without end harms only its own log: the run keeps the first
     * {@code maxOutputBytes} of the stream, on disk and so in the log, reads the rest away, and the
     * command runs on to its own end and exit code. Before, the whole output went to the run's file
     * and, line by line, into the database.
     */
    @Test
    void aCommandThatPrintsPastItsLimitKeepsTheLimitAndRunsOn() throws Exception {
        java.nio.file.Path runs = java.nio.file.Files.createTempDirectory("skiplock-runs-");
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("command", com.fasterxml.jackson.databind.JsonNode.class,
                        dev.skiplock.server.SkiplockServer.commandRunner(runs, 1024, 1000)));
        // 200,000 bytes: far past the pipe's buffer, so the stream's file is whole when it is measured
        String script = "head -c 200000 /dev/zero | tr '\\000' x; echo;"
                + " echo \"stored $(wc -c < \"$(dirname \"$SKIPLOCK_STEPS\")/stdout\")\" >&2; exit 3";
        Job job = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c", script)))
                .withMaxAttempts(1));

        Job done = awaitTerminal(worker, job.id());

        assertThat(done.status()).isEqualTo(JobStatus.FAILED);
        assertThat(done.lastError()).isEqualTo("exit code 3");
        assertThat(logLines(worker, job)).containsExactlyInAnyOrder("stdout:" + "x".repeat(1000), "stderr:stored 1000",
                        "skiplock:skiplock: stdout passed 1000 bytes; the rest of it was not kept");
    }

    /**
     * The cut is said while the command still runs, so a run that is then cancelled or timed out
     * (the usual end of one that prints without end) says it too. Before, the note came only once
     * the command had exited on its own.
     */
    @Test
    void aCommandThatPrintsPastItsLimitSaysSoWhileItRuns() throws Exception {
        java.nio.file.Path runs = java.nio.file.Files.createTempDirectory("skiplock-runs-");
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("command", com.fasterxml.jackson.databind.JsonNode.class,
                        dev.skiplock.server.SkiplockServer.commandRunner(runs, 1024, 1000)));
        String note = "skiplock:skiplock: stdout passed 1000 bytes; the rest of it was not kept";
        Job job = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c",
                "head -c 2000 /dev/zero | tr '\\000' x; exec sleep 600"))).withMaxAttempts(1));

        await().atMost(WAIT).until(() -> logLines(worker, job).contains(note));
        worker.cancel(job.id());
        Job done = awaitTerminal(worker, job.id());

        assertThat(done.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(logLines(worker, job)).filteredOn(line -> line.startsWith("skiplock:")).containsExactly(note);
    }

    /**
     * A command that puts a FIFO where its run's exit code goes cannot hold the worker: the runner
     * looks for the exit code while the command runs without opening the file (opening a FIFO
     * waits for a writer, and no interrupt ends that wait), so the cancel still ends the command.
     * The step file the runner cannot record marks the moment its look has begun.
     */
    @Test
    void aCommandThatPutsAFifoInPlaceOfItsExitCodeCanStillBeCancelled() throws Exception {
        java.nio.file.Path runs = java.nio.file.Files.createTempDirectory("skiplock-runs-");
        java.nio.file.Path pidFile = runs.resolveSibling(runs.getFileName() + ".pid");
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("command", com.fasterxml.jackson.databind.JsonNode.class,
                        dev.skiplock.server.SkiplockServer.commandRunner(runs, 1024)));
        String note = "skiplock:skiplock: step file cache not recorded: not a regular file";
        Job job = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c",
                "mkfifo \"$(dirname \"$SKIPLOCK_STEPS\")/exit\"; mkdir \"$SKIPLOCK_STEPS/cache\"; echo $$ > "
                        + pidFile + "; exec sleep 600"))).withMaxAttempts(1));
        try {
            await().atMost(WAIT).until(() -> logLines(worker, job).contains(note));
            long pid = Long.parseLong(java.nio.file.Files.readString(pidFile).trim());

            worker.cancel(job.id());

            assertThat(awaitTerminal(worker, job.id()).status()).isEqualTo(JobStatus.CANCELLED);
            await().atMost(WAIT).until(() -> ProcessHandle.of(pid).map(process -> !process.isAlive()).orElse(true));
        } finally {
            if (java.nio.file.Files.exists(pidFile)) {
                ProcessHandle.of(Long.parseLong(java.nio.file.Files.readString(pidFile).trim()))
                        .ifPresent(ProcessHandle::destroyForcibly);
                java.nio.file.Files.delete(pidFile);
            }
        }
    }

    /**
     * A run whose exit file cannot be written (a full disk; here a directory the command put in its
     * place) ends with the command's own code, which the wrapper exits with. Before, the wrapper
     * exited with its last statement's status: 0 after waiting for its output keepers, so a failed
     * command succeeded (second reader), and earlier the failed write's 2, so one that exited 0 failed.
     */
    @Test
    void aCommandWhoseExitCodeCannotBeRecordedEndsWithItsOwnCode() throws Exception {
        java.nio.file.Path runs = java.nio.file.Files.createTempDirectory("skiplock-runs-");
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("command", com.fasterxml.jackson.databind.JsonNode.class,
                        dev.skiplock.server.SkiplockServer.commandRunner(runs, 1024)));
        Job failing = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c",
                "mkdir \"$(dirname \"$SKIPLOCK_STEPS\")/exit\"; exit 5"))).withMaxAttempts(1));
        Job succeeding = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c",
                "mkdir \"$(dirname \"$SKIPLOCK_STEPS\")/exit\"; exit 0"))).withMaxAttempts(1));

        Job failed = awaitTerminal(worker, failing.id());
        Job succeeded = awaitTerminal(worker, succeeding.id());

        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.lastError()).isEqualTo("exit code 5");
        assertThat(succeeded.status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    private static List<String> logLines(Skiplock skiplock, Job job) {
        return skiplock.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("log"))
                .map(event -> event.stream() + ":" + event.message()).toList();
    }
}
