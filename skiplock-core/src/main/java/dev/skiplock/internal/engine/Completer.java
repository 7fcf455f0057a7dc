package dev.skiplock.internal.engine;

import dev.skiplock.JobStatus;
import dev.skiplock.internal.EventSignals;
import dev.skiplock.internal.StorableText;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.ConnectionLoss;
import dev.skiplock.internal.store.EventStore;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.Stores;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes outcomes in batches: one fenced statement for everything that finished while the
 * previous batch was being written, so batches grow with load and an idle worker still
 * writes each outcome at once. An execution stays registered (its lease kept alive by the
 * heartbeat) until its outcome is durable or rejected.
 *
 * <p>What one job carries can never block another's outcome ({@link IsolatingWriter}): the item
 * at fault alone is written in a storable form (an outcome as {@code failed} with a clear
 * {@code lastError}, a log line as a note saying it could not be stored). Everything written leaves
 * the batch at once, so a line is not written again when the rest is retried. A batch whose commit
 * answer the connection lost is written again whole: its lines carry their place in their stream,
 * and those already stored are skipped.
 */
final class Completer {
    private static final Logger LOG = LoggerFactory.getLogger(Completer.class);
    static final int MAX_BATCH = 1000;

    /** What waits to be written, in submission order: log lines and outcomes. */
    private sealed interface Pending {
    }

    private record PendingOutcome(Execution execution, Completion completion) implements Pending {
    }

    /** A log line, and what gives back its room in its execution's {@link LogBudget} once it is written or given up. */
    private record PendingLine(EventStore.LogLine line, Runnable written) implements Pending {
    }

    /** An outcome already durable (the handler's transaction wrote it). */
    private record PendingDone(Execution execution) implements Pending {
    }

    /** Completed once everything submitted before it is written. */
    private record PendingBarrier(CompletableFuture<Void> written) implements Pending {
    }

    /** Told of every execution whose outcome was completed (a resumable handler drops its traces). */
    interface Listener {
        void completed(Execution execution);

        /** Told the queues of dependents a batch's successes released, once committed (SQLite: nothing else wakes them). */
        default void dependentsReleased(java.util.Set<String> queues) {
        }
    }

    private final JobStore store;
    private final EventStore events;
    private final EventSignals signals;
    private final Registry registry;
    private final Counters counters;
    private final Listener listener;
    private final LinkedBlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
    /** What follows the write of the batch being written (completions already durable, barriers). */
    private final List<Runnable> afterFlush = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    /**
     * Whether a write of the pending outcomes failed with its connection (the loop's thread only):
     * it may have committed with its answer lost, so an outcome the next write does not apply may
     * be this worker's own, not a stale one.
     */
    private boolean outcomesMayHaveCommitted;
    private final IsolatingWriter<EventStore.LogLine> lineWriter;
    private final IsolatingWriter<PendingOutcome> outcomeWriter;

    Completer(Stores stores, EventSignals signals, Registry registry, Counters counters, Listener listener) {
        this.store = stores.jobs();
        this.events = stores.events();
        this.signals = signals;
        this.registry = registry;
        this.counters = counters;
        this.listener = listener;
        this.thread = Thread.ofPlatform().name("skiplock-completer").daemon().unstarted(this::loop);
        this.lineWriter = new IsolatingWriter<>(events::appendLogs, events::isDataError, Completer::storableLine,
                line -> { });
        // An outcome not written at all leaves its execution's lease to lapse: the job is reaped and adopted.
        this.outcomeWriter = new IsolatingWriter<>(this::writeOutcomes, store::isDataError, Completer::storableOutcome,
                outcome -> registry.remove(outcome.execution()));
    }

    void start() {
        thread.start();
    }

    void submit(Execution execution, Completion completion) {
        execution.markOutcome();
        pending.add(new PendingOutcome(execution, completion));
    }

    /**
     * The handler wrote its job's outcome in its own transaction, which committed: nothing is left
     * to write, only what follows a write. Its log lines still go first, in order.
     */
    void completedByHandler(Execution execution) {
        execution.markOutcome();
        pending.add(new PendingDone(execution));
    }

    /**
     * Waits until everything submitted so far (the log lines of a handler about to complete its job
     * in its own transaction, which ends its lease) is written or given up.
     */
    void awaitWritten() throws InterruptedException {
        CompletableFuture<Void> written = new CompletableFuture<>();
        pending.add(new PendingBarrier(written));
        try {
            written.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** As {@link #awaitWritten()}, for at most {@code limit}: false if the loop did not get that far (the warm-up's pass). */
    boolean awaitWritten(java.time.Duration limit) throws InterruptedException {
        CompletableFuture<Void> written = new CompletableFuture<>();
        pending.add(new PendingBarrier(written));
        try {
            written.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    /** Queues {@code line}; {@code written} runs once it is written, or given up. */
    void submitLog(EventStore.LogLine line, Runnable written) {
        pending.add(new PendingLine(line, written));
    }

    /**
     * Writes what is pending, then ends (a write that keeps failing is given up after its backoff
     * reaches 5 s), waiting at most {@code limit}: a statement hung on a connection cut without a
     * reset must not hold the shutdown for good. True if the caller was interrupted meanwhile.
     */
    boolean stop(java.time.Duration limit) {
        running = false;
        boolean interrupted = Threads.joinUninterruptibly(thread, limit);
        if (thread.isAlive()) {
            LOG.warn("the completer did not end within {} (a statement hung?); going on with the shutdown: outcomes"
                    + " not written leave their leases to lapse, and the reaper hands their jobs on", limit);
        }
        return interrupted;
    }

    private void loop() {
        List<EventStore.LogLine> lines = new ArrayList<>();
        List<PendingOutcome> outcomes = new ArrayList<>();
        long backoffMillis = 50;
        while (running || !pending.isEmpty() || !lines.isEmpty() || !outcomes.isEmpty()) {
            try {
                if (lines.isEmpty() && outcomes.isEmpty() && !take(lines, outcomes)) {
                    continue;
                }
                flush(lines, outcomes);
                outcomesMayHaveCommitted = false;
                backoffMillis = 50;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                // The database is unreachable or failing: keep what is left and try again. Leases keep
                // being extended meanwhile; if they expire, fencing rejects these outcomes later. An
                // Error too: a completer that died would leave its jobs running, their leases kept.
                outcomesMayHaveCommitted |= !outcomes.isEmpty() && ConnectionLoss.causes(e);
                LOG.warn("writing {} job outcomes and {} log lines failed; retrying in {} ms: {}", outcomes.size(),
                        lines.size(), backoffMillis, Timers.reason(e));
                sleepQuietly(backoffMillis);
                backoffMillis = Math.min(backoffMillis * 2, 5000);
                if (!running && backoffMillis >= 5000) {
                    LOG.error("giving up on {} job outcomes and {} log lines at shutdown; their leases will expire and be reaped",
                            outcomes.size(), lines.size());
                    lines.clear();
                    outcomes.clear();
                    afterFlush.forEach(Runnable::run);
                    afterFlush.clear();
                }
            }
        }
    }

    /** Takes the next batch, in submission order; false if nothing came within 100 ms. */
    private boolean take(List<EventStore.LogLine> lines, List<PendingOutcome> outcomes) throws InterruptedException {
        Pending first = pending.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
            return false;
        }
        List<Pending> batch = new ArrayList<>();
        batch.add(first);
        pending.drainTo(batch, MAX_BATCH - 1);
        for (Pending item : batch) {
            switch (item) {
                case PendingLine line -> {
                    lines.add(line.line());
                    afterFlush.add(line.written());
                }
                case PendingOutcome outcome -> outcomes.add(outcome);
                case PendingDone done -> afterFlush.add(() -> {
                    counters.finished(done.execution(), JobStatus.SUCCEEDED);
                    listener.completed(done.execution());
                    registry.remove(done.execution());
                    signals.signal(done.execution().job().id());
                });
                case PendingBarrier barrier -> afterFlush.add(() -> barrier.written().complete(null));
            }
        }
        return true;
    }

    /**
     * Writes log lines first, then outcomes. A job's lines are always submitted before its outcome,
     * so followers see all of them before the terminal status event. Written items leave the lists.
     */
    private void flush(List<EventStore.LogLine> lines, List<PendingOutcome> outcomes) {
        Set<UUID> touched = new HashSet<>();
        lines.forEach(line -> touched.add(line.attempt().id()));
        outcomes.forEach(outcome -> touched.add(outcome.completion().attempt().id()));
        lineWriter.write(lines);
        outcomeWriter.write(outcomes);
        signals.signalAll(touched);
        afterFlush.forEach(Runnable::run);
        afterFlush.clear();
    }

    private static EventStore.LogLine storableLine(EventStore.LogLine line) {
        return new EventStore.LogLine(line.attempt(), line.stream(), line.line(),
                "[skiplock: a log line of " + line.message().length() + " characters could not be stored]");
    }

    private static PendingOutcome storableOutcome(PendingOutcome outcome) {
        Completion given = outcome.completion();
        String error = "the outcome (" + given.status().wireName() + ") could not be stored"
                + (given.error() == null ? "" : "; its error began: "
                        + StorableText.of(given.error().substring(0, Math.min(200, given.error().length()))));
        return new PendingOutcome(outcome.execution(), new Completion(given.attempt(), JobStatus.FAILED, 0, null, error, 0));
    }

    private void writeOutcomes(List<PendingOutcome> batch) {
        List<Completion> completions = new ArrayList<>(batch.size());
        batch.forEach(item -> completions.add(item.completion()));
        Set<HeldAttempt> applied = new HashSet<>(store.completeJobs(completions, listener::dependentsReleased));
        for (PendingOutcome item : batch) { // asked before anything is counted: a failure here retries the batch
            if (!applied.contains(item.completion().attempt()) && writtenBefore(item)) {
                applied.add(item.completion().attempt());
            }
        }
        counters.completionBatch(batch.size());
        for (PendingOutcome item : batch) {
            Completion completion = item.completion();
            if (applied.contains(completion.attempt())) {
                counters.finished(item.execution(), completion.status());
                listener.completed(item.execution());
            } else {
                counters.staleCompletion(item.execution());
                LOG.warn("discarded the {} outcome of job {} attempt {}: its lease is gone (reaped, or taken by another worker)",
                        completion.status().wireName(), completion.attempt().id(), completion.attempt().attempt());
            }
            registry.remove(item.execution());
        }
    }

    /** Whether an earlier write of {@code item}, whose answer was lost with its connection, committed it. */
    private boolean writtenBefore(PendingOutcome item) {
        return outcomesMayHaveCommitted && store.completedByLease(item.completion());
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
