package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.EventSignals;
import dev.skiplock.internal.store.EventStore;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.Stores;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes outcomes in batches: one fenced statement for everything that finished while the
 * previous batch was being written, so batches grow with load and an idle worker still
 * writes each outcome at once. An execution stays registered (its lease kept alive by the
 * heartbeat) until its outcome is durable or rejected.
 */
final class Completer {
    private static final Logger LOG = LoggerFactory.getLogger(Completer.class);
    static final int MAX_BATCH = 1000;

    /** What waits to be written, in submission order: log lines and outcomes. */
    private sealed interface Pending {
    }

    private record Outcome(Execution execution, Completion completion) implements Pending {
    }

    private record Log(EventStore.LogLine line) implements Pending {
    }

    private final JobStore store;
    private final EventStore events;
    private final EventSignals signals;
    private final String workerId;
    private final Registry registry;
    private final Counters counters;
    /** Told of every attempt whose outcome became durable (a resumable handler drops its traces). */
    private final Consumer<Job> settled;
    private final LinkedBlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    Completer(Stores stores, EventSignals signals, String workerId, Registry registry, Counters counters,
            Consumer<Job> settled) {
        this.store = stores.jobs();
        this.events = stores.events();
        this.signals = signals;
        this.workerId = workerId;
        this.registry = registry;
        this.counters = counters;
        this.settled = settled;
        this.thread = Thread.ofPlatform().name("skiplock-completer").daemon().unstarted(this::loop);
    }

    void start() {
        thread.start();
    }

    void submit(Execution execution, Completion completion) {
        pending.add(new Outcome(execution, completion));
    }

    void submitLog(EventStore.LogLine line) {
        pending.add(new Log(line));
    }

    /** Writes what is pending, then stops. */
    void stop() throws InterruptedException {
        running = false;
        thread.join();
    }

    private void loop() {
        List<Pending> batch = new ArrayList<>();
        long backoffMillis = 50;
        while (running || !pending.isEmpty() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Pending first = pending.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    pending.drainTo(batch, MAX_BATCH - 1);
                }
                flush(batch);
                batch.clear();
                backoffMillis = 50;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // The database is unreachable or failing: keep the batch and try again. Leases keep
                // being extended meanwhile; if they expire, fencing rejects these outcomes later.
                LOG.warn("writing {} job outcomes and log lines failed; retrying in {} ms: {}", batch.size(), backoffMillis,
                        e.getMessage());
                sleepQuietly(backoffMillis);
                backoffMillis = Math.min(backoffMillis * 2, 5000);
                if (!running && backoffMillis >= 5000) {
                    LOG.error("giving up on {} job outcomes and log lines at shutdown; their leases will expire and be reaped",
                            batch.size());
                    batch.clear();
                }
            }
        }
    }

    /**
     * Writes the batch: log lines first, then outcomes. A job's lines are always submitted before
     * its outcome, so followers see all of them before the terminal status event.
     */
    private void flush(List<Pending> batch) {
        List<EventStore.LogLine> lines = new ArrayList<>();
        List<Outcome> outcomes = new ArrayList<>();
        for (Pending item : batch) {
            switch (item) {
                case Log log -> lines.add(log.line());
                case Outcome outcome -> outcomes.add(outcome);
            }
        }
        events.appendLogs(workerId, lines);
        if (!outcomes.isEmpty()) {
            writeOutcomes(outcomes);
        }
        Set<UUID> touched = new HashSet<>();
        lines.forEach(line -> touched.add(line.attempt().id()));
        outcomes.forEach(outcome -> touched.add(outcome.completion().attempt().id()));
        signals.signalAll(touched);
    }

    private void writeOutcomes(List<Outcome> batch) {
        List<Completion> completions = new ArrayList<>(batch.size());
        batch.forEach(item -> completions.add(item.completion()));
        Set<HeldAttempt> applied = store.complete(workerId, completions);
        counters.completionBatches.increment();
        for (Outcome item : batch) {
            Completion completion = item.completion();
            if (applied.contains(completion.attempt())) {
                count(completion);
                settled.accept(item.execution().job());
            } else {
                counters.staleFinalizations.increment();
                LOG.warn("discarded the {} outcome of job {} attempt {}: its lease now belongs to another worker",
                        completion.status().wireName(), completion.attempt().id(), completion.attempt().attempt());
            }
            registry.remove(item.execution());
        }
    }

    private void count(Completion completion) {
        switch (completion.status()) {
            case SUCCEEDED -> counters.succeeded.increment();
            case FAILED -> counters.failed.increment();
            case CANCELLED -> counters.cancelled.increment();
            case TIMED_OUT -> counters.timedOut.increment();
            case QUEUED -> counters.retried.increment();
            default -> throw new IllegalStateException("unexpected completion status " + completion.status());
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
