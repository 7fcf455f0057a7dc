package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobOutcome;
import dev.skiplock.ResumableHandler;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.Stores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The execute stage: runs each claimed or adopted job's handler on a virtual thread and hands its
 * outcome to the completer. Only the first of "the handler returned" and "a stop" counts
 * ({@link Execution}); a stop's outcome is the {@link Stopper}'s.
 */
final class JobRunner {
    private static final Logger LOG = LoggerFactory.getLogger(JobRunner.class);

    /** What the runner works with: the stages after it and the state it shares with them. */
    record Parts(Handlers handlers, Outcomes outcomes, Registry registry, Counters counters, Stopper stopper,
            Timeouts timeouts, Completer completer, HandlerServices services, JobTracing tracing) {
    }

    private final Stores stores;
    /** The limit of a job that sets none; {@code null} = none. */
    private final Duration defaultTimeout;
    private final Parts parts;
    /**
     * One virtual thread per execution, all named {@code skiplock-job}: a numbered name is a string
     * built per job (issue #12: 2 % of a drain's allocations), and the MDC names the job.
     */
    private final ExecutorService handlerThreads =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("skiplock-job").factory());

    JobRunner(Stores stores, Duration defaultTimeout, Parts parts) {
        this.stores = stores;
        this.defaultTimeout = defaultTimeout;
        this.parts = parts;
    }

    /**
     * Runs a freshly claimed job; its slot is given back to {@code slots} when its outcome is known
     * and its handler has returned ({@link Execution#runHandler}: a stopped handler may run on), its
     * hold when it leaves the {@link Registry} (outcome durable or dropped, or lease gone). A job
     * whose cancel was requested before its row was read (SQLite reads a claim's rows after its
     * commit) ends cancelled without its handler running. One that cannot start (what throws here,
     * an Error too) is not held ({@link #notStarted}): the reaper hands it on, its attempt counted
     * as lost, as for a worker killed between claim and start.
     */
    void start(Claimed claimed, Slots slots) {
        Execution execution = taking(claimed, slots);
        try {
            parts.registry().add(execution);
            if (claimed.job().cancelRequested()) {
                parts.stopper().cancelBeforeStart(execution);
                return;
            }
            scheduleTimeout(execution);
            execution.runHandler(handlerThreads, () -> execute(execution, false)); // not if a stop already ended it
        } catch (RuntimeException | Error e) {
            notStarted(execution);
            throw e;
        }
    }

    /**
     * Adopts an orphan (DESIGN §2, adoption) under a new token. An execution of the same job that
     * this worker still runs (it was paused past its lease, then reaped) is stopped first: its
     * lease is gone. A {@link ResumableHandler}'s execution may have outlived its worker: it is
     * resumed (finished → its recorded outcome, running → waited for, not found → retried or
     * failed); a cancel already requested or a timeout already passed stops it as soon as it is
     * found. Any other handler ran in-process and died with its worker's JVM, so the attempt is
     * "not found" at once. An orphan that cannot be taken on (what throws here) is handed on as a
     * job that cannot start is ({@link #start}).
     */
    void adopt(Claimed orphan, Slots slots) {
        Job job = orphan.job();
        Execution execution = taking(orphan, slots);
        try {
            parts.counters().adopted(job);
            parts.stopper().stopRunning(job.id(), Execution.StopReason.LEASE_LOST);
            parts.registry().add(execution);
            if (parts.handlers().isResumable(job.kind())) {
                LOG.info("adopting job {} attempt {}: resuming its execution", job.id(), job.attempt());
                // The resume runs even when a stop decides the outcome: it ends what still runs. It
                // takes its hold on the slot before a cancel or a timeout already passed can free it;
                // a cancel that came since the registration above freed it first, and the resume
                // runs anyway, outside the slot, as a stopped handler that runs on.
                if (!execution.runHandler(handlerThreads, () -> execute(execution, true))) {
                    handlerThreads.execute(() -> execute(execution, true));
                }
                if (job.cancelRequested()) {
                    parts.stopper().stop(execution, Execution.StopReason.CANCEL);
                }
                scheduleTimeout(execution);
                return;
            }
            // a stop may have come first (a cancel, or a shutdown's release): then it decided
            if (execution.completeByHandler()) {
                parts.completer().submit(execution, parts.outcomes().orphaned(execution, parts.handlers().retryPolicyOf(job)));
                execution.releaseSlot();
            }
        } catch (RuntimeException | Error e) {
            notStarted(execution);
            throw e;
        }
    }

    /** An execution of {@code taken}, on its slot; if even that fails, the slot and its hold go back first. */
    private static Execution taking(Claimed taken, Slots slots) {
        try {
            return new Execution(taken, slots);
        } catch (RuntimeException | Error e) {
            slots.giveBack(1);
            throw e;
        }
    }

    /**
     * An execution that could not start: nothing runs it, so this worker does not hold it. Left
     * registered, its lease would be kept alive for good; out of the registry (its slot freed, its
     * timeout cancelled) its lease lapses and the reaper hands the job on.
     */
    private void notStarted(Execution execution) {
        execution.stop(Execution.StopReason.LEASE_LOST); // a handler thread started anyway decides no outcome
        parts.registry().remove(execution);
        execution.releaseSlot();
    }

    /**
     * Takes the first-use costs of starting an execution ({@link Warmup}): {@code execution} (of a
     * job nobody holds) is registered in a registry of its own and removed, and a task on the
     * handlers' executor does for it what surrounds a handler (MDC, context, outcome) without a
     * handler (nor a span: an application's tracer would export it).
     */
    void warmUp(List<Execution> executions) throws InterruptedException {
        Registry scratch = new Registry();
        List<Future<?>> tasks = new ArrayList<>();
        for (Execution execution : executions) {
            scratch.add(execution);
            scratch.get(execution.attempt());
            scratch.remove(execution);
            tasks.add(handlerThreads.submit(() -> {
                try (JobThreadContext context = JobThreadContext.enter(execution.job(),
                        io.opentelemetry.api.trace.Span.getInvalid())) {
                    new ExecutionContext<>(null, execution, parts.services(), false);
                    parts.outcomes().fromHandler(execution, JobOutcome.complete(), null);
                }
            }));
        }
        try {
            for (Future<?> task : tasks) {
                task.get();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * How long a shutdown waits for the handlers it stopped to end: what a stopped handler does on
     * its way out is given that long (a command's grace period, 5 s, between its SIGTERM and SIGKILL).
     */
    static final Duration STOPPED_HANDLERS_LIMIT = Duration.ofSeconds(10);

    /**
     * Waits for the handlers still running, which the shutdown released and interrupted, to end
     * ({@link #STOPPED_HANDLERS_LIMIT}), then interrupts those left; true if the caller was
     * interrupted. Interrupted again at once, a command was killed without its grace period.
     */
    boolean stop() {
        return Threads.endWithin(handlerThreads, STOPPED_HANDLERS_LIMIT);
    }

    /**
     * The job's timeout counts from its start: an adopted execution gets what its first worker
     * left, measured by the database clock (the worker's own clock may differ from it).
     */
    private void scheduleTimeout(Execution execution) {
        Job job = execution.job();
        Duration limit = Timeouts.limitOf(job, defaultTimeout);
        if (limit != null) {
            parts.timeouts().schedule(execution, limit.minusMillis(execution.elapsedMillis()));
        }
    }

    private void execute(Execution execution, boolean resume) {
        execution.bindThread(Thread.currentThread());
        Job job = execution.job();
        if (!resume && execution.stopRequested()) {
            return; // stopped before it started (cancel, timeout): nothing ran, the stop decided the outcome
        }
        Completion completion;
        io.opentelemetry.api.trace.Span span = parts.tracing().startOrNone(job);
        try (JobThreadContext context = JobThreadContext.enter(job, span)) {
            completion = outcomeOf(execution, job, resume);
        }
        boolean decided = execution.completeByHandler();
        JobTracing.endOrWarn(span, execution, completion, decided);
        if (decided) {
            if (completion == null) {
                parts.completer().completedByHandler(execution);
            } else {
                parts.completer().submit(execution, completion);
            }
            execution.releaseSlot();
        }
        Thread.interrupted(); // a stop that lost the race may have interrupted us; do not leak it
    }

    /** The outcome to write; {@code null} when the handler wrote it in its own transaction. */
    private Completion outcomeOf(Execution execution, Job job, boolean resume) {
        HandlerBinding<?> binding = parts.handlers().of(job.kind());
        if (binding == null) {
            return parts.outcomes().permanentFailure(execution, "no handler for kind " + job.kind());
        }
        Completion returned;
        try {
            returned = resume ? resume(binding, execution, job) : invoke(binding, execution, job);
        } catch (Handlers.ArgsException e) {
            return parts.outcomes().permanentFailure(execution, e.getMessage());
        } catch (Throwable error) {
            returned = parts.outcomes().fromException(execution, error, binding.retryPolicy());
        }
        Execution.Suspension wait = execution.suspension();
        if (wait != null) {
            return parts.outcomes().suspended(execution, wait); // whatever the handler did after it
        }
        if (execution.isCompletedInTransaction()) {
            return committedByHandler(execution) ? null : parts.outcomes().fromHandler(execution,
                    JobOutcome.fail("completeInTransaction was called, but its transaction did not commit"),
                    binding.retryPolicy());
        }
        return returned;
    }

    /**
     * Whether the handler's transaction that completed the job committed: the job no longer runs
     * this execution. When the database cannot tell, the failure outcome is written anyway: if the
     * transaction did commit, the fence rejects it as stale.
     */
    private boolean committedByHandler(Execution execution) {
        try {
            return !execution.storeCall(() -> stores.jobs().executionRunning(execution.job().id(), execution.executionId()));
        } catch (RuntimeException e) {
            LOG.warn("job {}: cannot tell whether the handler's transaction committed; writing its failure, which is"
                    + " discarded if it did: {}", execution.job().id(), e.getMessage());
            return false;
        }
    }

    @SuppressWarnings("unchecked") // adopt resumes only bindings whose handler is a ResumableHandler of A
    private <A> Completion resume(HandlerBinding<A> binding, Execution execution, Job job) throws Exception {
        A args = parts.handlers().readArgs(binding, job);
        ResumableHandler<A> handler = (ResumableHandler<A>) binding.handler();
        Optional<JobOutcome> outcome = handler.resume(new ExecutionContext<>(args, execution, parts.services(), true));
        if (outcome.isEmpty()) {
            LOG.info("job {} attempt {}: its execution is gone", job.id(), job.attempt());
            return parts.outcomes().orphaned(execution, binding.retryPolicy());
        }
        parts.counters().resumed(job);
        return parts.outcomes().fromHandler(execution, outcome.get(), binding.retryPolicy());
    }

    private <A> Completion invoke(HandlerBinding<A> binding, Execution execution, Job job) throws Exception {
        A args = parts.handlers().readArgs(binding, job);
        JobContext<A> context = new ExecutionContext<>(args, execution, parts.services(), false);
        JobOutcome outcome = binding.handler().handle(context);
        return parts.outcomes().fromHandler(execution, outcome, binding.retryPolicy());
    }
}
