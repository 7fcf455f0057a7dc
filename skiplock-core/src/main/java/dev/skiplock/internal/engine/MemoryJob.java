package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.ResumableHandler;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One in-memory job ({@link MemoryJobs}): its row and event log kept in this object, its attempts
 * run as {@link Execution}s whose outcomes are written here the way {@code complete_jobs} writes a
 * durable job's. Guarded by its own monitor.
 */
final class MemoryJob {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryJob.class);

    /** What never changes after enqueue. */
    record Fields(UUID id, String tenant, String queue, String kind, JsonNode args, JsonNode metadata, int priority,
            int maxAttempts, Integer timeoutSeconds) {
    }

    private final MemoryJobs owner;
    private final HandlerBinding<?> binding;
    private final Fields fields;
    private final Instant requestedAt = Instant.now();
    private final List<JobEvent> events = new ArrayList<>();
    private JobStatus status = JobStatus.QUEUED;
    private int attempt;
    private int maxAttempts;
    private Instant availableAt = requestedAt;
    private Instant startedAt;
    private Instant finishedAt;
    private boolean cancelRequested;
    private JsonNode progress;
    private JsonNode result;
    private String lastError;
    /** The running attempt, or null. */
    private Execution execution;
    /** The next start (first run, retry, snooze), or null. */
    private ScheduledFuture<?> nextStart;

    MemoryJob(MemoryJobs owner, HandlerBinding<?> binding, Fields fields) {
        this.owner = owner;
        this.binding = binding;
        this.fields = fields;
        this.maxAttempts = fields.maxAttempts();
    }

    UUID id() {
        return fields.id();
    }

    String tenant() {
        return fields.tenant();
    }

    /** Records the {@code queued} event and starts the first attempt at once; returns the queued job. */
    synchronized Job enqueued() {
        event("status", JobStatus.QUEUED.wireName(), null, null, null);
        startAfter(0);
        return snapshot();
    }

    /** The job as a client sees it: the one place an in-memory {@link Job} is built. */
    synchronized Job snapshot() {
        return new Job(fields.id(), fields.tenant(), fields.queue(), fields.kind(), fields.args(), fields.metadata(),
                fields.priority(), status, attempt, maxAttempts, availableAt, requestedAt, startedAt, finishedAt,
                fields.timeoutSeconds(), null, List.of(), cancelRequested, progress, result, lastError, null, null);
    }

    synchronized List<JobEvent> events(long afterSeq, int limit) {
        return events.stream().filter(event -> event.seq() > afterSeq).limit(limit).toList();
    }

    synchronized boolean finishedBefore(Instant cutoff) {
        return status.isTerminal() && finishedAt.isBefore(cutoff);
    }

    synchronized void requireTerminal() {
        if (!status.isTerminal()) {
            throw new JobStateException("job " + fields.id() + " is " + status.wireName() + ", not terminal", snapshot());
        }
    }

    Job cancel() {
        Execution running;
        Job answer;
        synchronized (this) {
            if (status.isTerminal()) {
                throw new JobStateException("job " + fields.id() + " is already " + status.wireName(), snapshot());
            }
            if (status == JobStatus.QUEUED) {
                if (nextStart != null) {
                    nextStart.cancel(false);
                }
                finish(JobStatus.CANCELLED, null, null);
                return snapshot();
            }
            cancelRequested = true;
            running = execution;
            answer = snapshot();
        }
        stop(running, Execution.StopReason.CANCEL);
        return answer;
    }

    void shutdown() {
        Execution running;
        synchronized (this) {
            running = execution;
        }
        if (running != null) {
            running.stop(Execution.StopReason.SHUTDOWN);
        }
    }

    /** Appends a {@code log} event of the running attempt. */
    synchronized void log(String stream, String message) {
        event("log", null, stream, message, null);
    }

    /** Records progress while {@code of} still runs; false once its attempt has ended. */
    synchronized boolean progress(Execution of, Object data) {
        if (execution != of || !of.isRunning()) {
            return false;
        }
        progress = Json.MAPPER.valueToTree(data);
        event("progress", null, null, null, progress);
        return true;
    }

    private void startAfter(long delayMillis) {
        try {
            nextStart = owner.timer().schedule(this::start, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("in-memory job {} not started: its instance is closing", fields.id());
        }
    }

    private void start() {
        Execution started;
        synchronized (this) {
            if (status != JobStatus.QUEUED) {
                return; // cancelled meanwhile
            }
            nextStart = null;
            attempt++;
            status = JobStatus.RUNNING;
            startedAt = Instant.now();
            started = new Execution(new Claimed(snapshot(), new HeldAttempt(fields.id(), attempt, UUID.randomUUID()),
                    UUID.randomUUID(), 0), () -> { });
            execution = started;
            event("status", JobStatus.RUNNING.wireName(), null, null, null);
        }
        Integer timeoutSeconds = owner.effectiveTimeoutSeconds(fields.timeoutSeconds());
        try {
            if (timeoutSeconds != null) {
                started.setTimeout(owner.timer().schedule(() -> stop(started, Execution.StopReason.TIMEOUT),
                        timeoutSeconds, TimeUnit.SECONDS));
            }
            owner.handlerThreads().execute(() -> execute(started));
        } catch (RejectedExecutionException e) {
            LOG.debug("in-memory job {} not run: its instance is closing", fields.id());
        }
    }

    private void execute(Execution running) {
        running.bindThread(Thread.currentThread());
        if (running.stopRequested()) {
            return; // stopped before it started: the stop wrote the outcome
        }
        try {
            Completion completion = runHandler(running);
            if (running.finishByHandler()) {
                complete(running, completion);
            }
        } finally {
            settled(running);
            Thread.interrupted(); // a stop that lost the race may have interrupted us; do not leak it
        }
    }

    private Completion runHandler(Execution running) {
        try {
            return invoke(binding, running);
        } catch (ArgsMismatch e) {
            return owner.outcomes.permanentFailure(running, e.getMessage());
        } catch (Throwable error) {
            return owner.outcomes.fromException(running, error, binding.retryPolicy());
        }
    }

    private <A> Completion invoke(HandlerBinding<A> typed, Execution running) throws Exception {
        A args;
        try {
            args = Json.MAPPER.treeToValue(fields.args(), typed.argsType());
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new ArgsMismatch("args do not match " + typed.argsType().getSimpleName() + " for kind "
                    + fields.kind() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
        JobOutcome outcome = typed.handler().handle(new MemoryContext<>(args, running, this));
        return owner.outcomes.fromHandler(running, outcome, typed.retryPolicy());
    }

    /** Nothing of an in-memory execution outlives it: a resumable handler may drop its traces at once. */
    private void settled(Execution ended) {
        if (binding.handler() instanceof ResumableHandler<?> resumable) {
            try {
                resumable.settled(fields.id(), ended.executionId());
            } catch (RuntimeException e) {
                LOG.warn("{} could not clean up after in-memory job {}: {}", fields.kind(), fields.id(), e.getMessage());
            }
        }
    }

    private void stop(Execution running, Execution.StopReason reason) {
        if (running == null || !running.stop(reason)) {
            return;
        }
        switch (reason) {
            case CANCEL -> complete(running, owner.outcomes.cancelled(running));
            case TIMEOUT -> complete(running, owner.outcomes.timedOut(running, binding.retryPolicy()));
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
        maxAttempts += completion.extraAttempts();
        if (completion.status() == JobStatus.QUEUED && !cancelRequested) {
            lastError = completion.error() != null ? completion.error() : lastError;
            status = JobStatus.QUEUED;
            availableAt = Instant.now().plusMillis(completion.delayMillis());
            event("status", JobStatus.QUEUED.wireName(), null, completion.error(), null);
            startAfter(completion.delayMillis());
            return;
        }
        JobStatus finalStatus = completion.status() == JobStatus.QUEUED ? JobStatus.CANCELLED : completion.status();
        finish(finalStatus, completion.error(), completion.result());
    }

    private void finish(JobStatus finalStatus, String error, JsonNode value) {
        status = finalStatus;
        finishedAt = Instant.now();
        result = value;
        lastError = error != null ? error : lastError;
        event("status", finalStatus.wireName(), null, error, null);
    }

    private void event(String type, String eventStatus, String stream, String message, JsonNode data) {
        events.add(new JobEvent(owner.nextSeq(), Instant.now(), fields.id(), attempt, type, eventStatus, null, stream,
                message, data));
        owner.signals.signal(fields.id());
    }

    /** Args that cannot be read into the handler's type: the job can never succeed as enqueued. */
    private static final class ArgsMismatch extends RuntimeException {
        ArgsMismatch(String message) {
            super(message);
        }
    }
}
