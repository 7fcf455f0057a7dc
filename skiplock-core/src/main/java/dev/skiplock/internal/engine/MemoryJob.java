package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.StorableText;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.StepStore;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.EventSignals;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One in-memory job ({@link MemoryJobs}): its row and event log kept in this object, its attempts
 * run as {@link Execution}s whose outcomes are written here the way {@code complete_jobs} writes a
 * durable job's. Guarded by its own monitor.
 */
final class MemoryJob {

    /** What every in-memory job of an instance shares; given, never its owner (work flows one way). */
    record Runtime(ScheduledExecutorService timer, ExecutorService handlerThreads, Handlers handlers, Outcomes outcomes,
            AtomicLong seq, EventSignals signals, Clock clock, Duration defaultTimeout, SkiplockConfig config,
            JobTracing tracing, java.util.function.Consumer<MemoryJob> ended) {
    }

    /**
     * A checkpoint of this job ({@link Steps}); a wait ends at {@code wakeAtNanos} of the monotonic
     * timer, the timer that starts the job again (a test's fixed clock must not keep it waiting).
     */
    private record Kept(StepStore.Kind kind, JsonNode output, Long wakeAtNanos) {
    }

    /** The log lines an in-memory job keeps, over all its attempts, and their characters at most. */
    static final int KEPT_LOG_LINES = 10_000;
    static final int KEPT_LOG_CHARACTERS = 4 << 20;
    /** The error of a job its instance's close ended before it did. */
    static final String LOST = "lost: the Skiplock instance running it closed before it ended";
    /** The stream of what Skiplock says about a job's log (as the command runner's notes). */
    private static final String NOTES = "skiplock";

    private final Runtime runtime;
    private final HandlerBinding<?> binding;
    /** The log lines kept so far, their characters, and whether later ones are dropped. */
    private int logLines;
    private long logCharacters;
    private boolean logDropped;
    private final List<JobEvent> events = new ArrayList<>();
    /** Checkpoints by name, kept for the job's life in this process: a retry or a wake-up skips finished steps. */
    private final Map<String, Kept> checkpoints = new LinkedHashMap<>();
    /** The job's row, as a durable job's would read: replaced (never mutated) at every change. */
    private Job job;
    /** How many attempts ended in a snooze or a wait: the row's {@code snoozes} of a durable job. */
    private int snoozes;
    /** The running attempt, or null. */
    private Execution execution;
    /** The next start (first run, retry, snooze), or null. */
    private ScheduledFuture<?> nextStart;

    /** {@code requested}: as {@code TenantJobClient} builds it for an insert (status queued, attempt 0). */
    MemoryJob(Runtime runtime, HandlerBinding<?> binding, Job requested) {
        this.runtime = runtime;
        this.binding = binding;
        Instant now = runtime.clock().instant();
        this.job = requested.toBuilder().requestedAt(now).availableAt(now).build();
    }

    UUID id() {
        return job.id();
    }

    String tenant() {
        return job.tenant();
    }

    /** Records the {@code queued} event and starts the first attempt at once; returns the queued job. */
    synchronized Job enqueued() {
        event("status", JobStatus.QUEUED.wireName(), null, null, null);
        startAfter(0);
        return job;
    }

    /** The job as a client sees it. */
    synchronized Job snapshot() {
        return job;
    }

    synchronized List<JobEvent> events(long afterSeq, int limit) {
        return events.stream().filter(event -> event.seq() > afterSeq).limit(limit).toList();
    }

    synchronized boolean finishedBefore(Instant cutoff) {
        return job.status().isTerminal() && job.finishedAt().isBefore(cutoff);
    }

    synchronized void requireTerminal() {
        if (!job.status().isTerminal()) {
            throw new JobStateException("job " + job.id() + " is " + job.status().wireName() + ", not terminal", job);
        }
    }

    Job cancel() {
        Execution running;
        Job answer;
        synchronized (this) {
            if (job.status().isTerminal()) {
                throw new JobStateException("job " + job.id() + " is already " + job.status().wireName(), job);
            }
            if (job.status() == JobStatus.QUEUED) {
                if (nextStart != null) {
                    nextStart.cancel(false);
                }
                finish(JobStatus.CANCELLED, null, null);
                return job;
            }
            job = job.toBuilder().cancelRequested(true).build();
            running = execution;
            answer = job;
        }
        stop(running, Execution.StopReason.CANCEL);
        return answer;
    }

    /**
     * Its instance closes: a job not yet ended (running, or waiting for its next attempt) fails as
     * lost, so that whoever awaits it learns so, and its handler is stopped; what the handler still
     * returns or logs is dropped. Before, it stayed running or queued, and a wait for it never ended.
     */
    void shutdown() {
        Execution running;
        synchronized (this) {
            running = execution;
            lostWithItsInstance();
        }
        if (running != null) {
            running.stop(Execution.StopReason.SHUTDOWN);
        }
    }

    private void lostWithItsInstance() {
        if (job.status().isTerminal()) {
            return;
        }
        if (nextStart != null) {
            nextStart.cancel(false);
            nextStart = null;
        }
        execution = null;
        if (job.cancelRequested()) {
            finish(JobStatus.CANCELLED, Outcomes.CANCELLED_WHILE_RUNNING, null); // a cancel answered, its stop overtaken by the close
        } else {
            finish(JobStatus.FAILED, LOST, null);
        }
    }

    /**
     * Appends a {@code log} event of attempt {@code of} while its outcome is not yet written: as a
     * durable job's lines are fenced by the lease, a line a stopped handler logs after its terminal
     * status (or once a retry began) is dropped. The job's log lives in the heap every job of the
     * process shares: it keeps its first {@value #KEPT_LOG_LINES} lines up to {@value
     * #KEPT_LOG_CHARACTERS} characters, then says once that it drops the rest.
     */
    synchronized void log(Execution of, String stream, String message) {
        if (execution != of || logDropped) {
            return;
        }
        if (logLines < KEPT_LOG_LINES && logCharacters + message.length() <= KEPT_LOG_CHARACTERS) {
            logLines++;
            logCharacters += message.length();
            event("log", null, stream, message, null);
        } else {
            logDropped = true;
            event("log", null, NOTES, "[skiplock: an in-memory job keeps its first " + KEPT_LOG_LINES + " log lines, "
                    + KEPT_LOG_CHARACTERS + " characters at most; later ones are dropped]", null);
        }
    }

    /** Records progress while {@code of} still runs; false once its attempt has ended. */
    synchronized boolean progress(Execution of, Object data) {
        if (execution != of || !of.isRunning()) {
            return false;
        }
        JsonNode progress = Json.MAPPER.valueToTree(data);
        StorableText.requireNesting("progress", progress); // as a durable job's
        job = job.toBuilder().progress(progress).build();
        event("progress", null, null, null, progress);
        return true;
    }

    private void startAfter(long delayMillis) {
        try {
            nextStart = runtime.timer().schedule(this::start, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            lostWithItsInstance(); // enqueued, or due again, as the instance closed
        }
    }

    private void start() {
        Execution started;
        synchronized (this) {
            if (job.status() != JobStatus.QUEUED) {
                return; // cancelled meanwhile
            }
            nextStart = null;
            job = job.toBuilder().attempt(job.attempt() + 1).status(JobStatus.RUNNING)
                    .startedAt(runtime.clock().instant()).build();
            started = new Execution(new Claimed(job, new HeldAttempt(job.id(), job.attempt(), UUID.randomUUID()),
                    UUID.randomUUID(), 0, snoozes));
            execution = started;
            event("status", JobStatus.RUNNING.wireName(), null, null, null);
        }
        Duration timeout = Timeouts.limitOf(started.job(), runtime.defaultTimeout());
        try {
            if (timeout != null) {
                started.setTimeout(runtime.timer().schedule(() -> stop(started, Execution.StopReason.TIMEOUT),
                        timeout.toMillis(), TimeUnit.MILLISECONDS));
            }
            runtime.handlerThreads().execute(() -> execute(started));
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                lostWithItsInstance(); // started as the instance closed: no thread will run it
            }
        }
    }

    private void execute(Execution running) {
        running.bindThread(Thread.currentThread());
        if (running.stopRequested()) {
            return; // stopped before it started: the stop wrote the outcome
        }
        try {
            Completion completion;
            io.opentelemetry.api.trace.Span span = runtime.tracing().startOrNone(running.job());
            try (JobThreadContext context = JobThreadContext.enter(running.job(), span)) {
                completion = runHandler(running);
            }
            boolean decided = running.completeByHandler();
            JobTracing.endOrWarn(span, running, completion, decided);
            if (decided) {
                complete(running, completion);
            }
        } finally {
            // nothing of an in-memory execution outlives it: a resumable handler may drop its traces at once
            runtime.handlers().completed(running);
            Thread.interrupted(); // a stop that lost the race may have interrupted us; do not leak it
        }
    }

    private Completion runHandler(Execution running) {
        Completion returned;
        try {
            returned = invoke(binding, running);
        } catch (Handlers.ArgsException e) {
            return runtime.outcomes().permanentFailure(running, e.getMessage());
        } catch (Throwable error) {
            returned = runtime.outcomes().fromException(running, error, binding.retryPolicy());
        }
        Execution.Suspension wait = running.suspension();
        return wait == null ? returned : runtime.outcomes().suspended(running, wait);
    }

    /** The checkpoints as {@link Steps} reads them: a wait's time left by this instance's clock. */
    synchronized Map<String, StepStore.Checkpoint> checkpoints() {
        long now = System.nanoTime();
        Map<String, StepStore.Checkpoint> all = new LinkedHashMap<>();
        checkpoints.forEach((name, kept) -> all.put(name, new StepStore.Checkpoint(name, kept.kind(), kept.output(),
                kept.wakeAtNanos() == null ? null : TimeUnit.NANOSECONDS.toMillis(kept.wakeAtNanos() - now))));
        return all;
    }

    /** Records a checkpoint of the running attempt and its step event; false for an attempt no longer running. */
    synchronized boolean recordStep(Execution running, String name, StepStore.Kind kind, String outputJson,
            Long waitMillis, String eventStatus) {
        if (execution != running) {
            return false;
        }
        checkpoints.put(name, new Kept(kind, outputJson == null ? null : Json.read(outputJson),
                waitMillis == null ? null : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis)));
        stepEvent(name, eventStatus, null);
        return true;
    }

    /** A step event of the running attempt; dropped for an attempt no longer running. */
    synchronized void stepEvent(Execution running, String name, String status, String message) {
        if (execution == running) {
            stepEvent(name, status, message);
        }
    }

    private void stepEvent(String name, String status, String message) {
        events.add(new JobEvent(runtime.seq().incrementAndGet(), runtime.clock().instant(), job.id(), job.attempt(),
                "step", status, name, null, message, null));
        runtime.signals().signal(job.id());
    }

    private <A> Completion invoke(HandlerBinding<A> typed, Execution running) throws Exception {
        A args = runtime.handlers().readArgs(typed, running.job());
        JobOutcome outcome = typed.handler().handle(new MemoryContext<>(args, running, this, runtime.config()));
        return runtime.outcomes().fromHandler(running, outcome, typed.retryPolicy());
    }

    private void stop(Execution running, Execution.StopReason reason) {
        if (running == null || !running.stop(reason)) {
            return;
        }
        switch (reason) {
            case CANCEL -> complete(running, runtime.outcomes().cancelled(running));
            case TIMEOUT -> complete(running, runtime.outcomes().timedOut(running, binding.retryPolicy()));
            default -> { } // shutdown: the job is lost with its instance
        }
    }

    /**
     * Writes an attempt's outcome as {@code complete_jobs} does for a durable job: {@code queued}
     * runs again after the delay (a retry of a job whose cancel was requested is cancelled
     * instead), anything else is final; {@code lastError} keeps the previous error unless a new one came.
     */
    private synchronized void complete(Execution ended, Completion completion) {
        if (execution != ended) {
            return;
        }
        execution = null;
        job = job.toBuilder().maxAttempts(job.maxAttempts() + completion.extraAttempts()).build();
        snoozes += completion.extraAttempts();
        if (completion.status() == JobStatus.QUEUED && !job.cancelRequested()) {
            job = job.toBuilder().status(JobStatus.QUEUED)
                    .lastError(completion.error() != null ? completion.error() : job.lastError())
                    .availableAt(runtime.clock().instant().plusMillis(completion.delayMillis())).build();
            event("status", JobStatus.QUEUED.wireName(), null, completion.error(), null);
            startAfter(completion.delayMillis());
            return;
        }
        JobStatus finalStatus = completion.status() == JobStatus.QUEUED ? JobStatus.CANCELLED : completion.status();
        finish(finalStatus, completion.error(), completion.result());
    }

    private void finish(JobStatus finalStatus, String error, JsonNode value) {
        job = job.toBuilder().status(finalStatus).finishedAt(runtime.clock().instant()).result(value)
                .lastError(error != null ? error : job.lastError()).build();
        event("status", finalStatus.wireName(), null, error, null);
        runtime.ended().accept(this);
    }

    private void event(String type, String eventStatus, String stream, String message, JsonNode data) {
        events.add(new JobEvent(runtime.seq().incrementAndGet(), runtime.clock().instant(), job.id(), job.attempt(),
                type, eventStatus, null, stream, message, data));
        runtime.signals().signal(job.id());
    }
}
