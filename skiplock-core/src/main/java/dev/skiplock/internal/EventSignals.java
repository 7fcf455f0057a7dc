package dev.skiplock.internal;

import java.util.Collection;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Wakes followers of a job's events: the engine signals after it wrote events, the notifier when
 * another process did. A follower registers before it reads, so a signal between read and wait
 * is never lost. Thread-safe.
 */
public final class EventSignals {
    private final ConcurrentHashMap<UUID, Set<CompletableFuture<Void>>> waiters = new ConcurrentHashMap<>();
    /** Makes the set of one job's registrations (a test's may pause in it). */
    private final Supplier<Set<CompletableFuture<Void>>> newSet;

    public EventSignals() {
        this(ConcurrentHashMap::newKeySet);
    }

    EventSignals(Supplier<Set<CompletableFuture<Void>>> newSet) {
        this.newSet = newSet;
    }

    /** Registers interest in {@code jobId}; pass the result to {@link #await}. */
    public CompletableFuture<Void> register(UUID jobId) {
        CompletableFuture<Void> signal = new CompletableFuture<>();
        // Added under the entry's lock: a set taken outside it could be emptied and removed by
        // another follower's await meanwhile, and a signal added to it then would reach nobody.
        waiters.compute(jobId, (key, set) -> {
            Set<CompletableFuture<Void>> registered = set != null ? set : newSet.get();
            registered.add(signal);
            return registered;
        });
        return signal;
    }

    /** Waits for a signal on a registration, at most {@code millis}; always unregisters it. */
    public void await(UUID jobId, CompletableFuture<Void> signal, long millis) throws InterruptedException {
        try {
            signal.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // Timed out: the caller reads again anyway (the safety net for lost signals).
        } finally {
            unregister(jobId, signal);
        }
    }

    /** Drops a registration that will not be awaited (the read between register and await failed). */
    public void unregister(UUID jobId, CompletableFuture<Void> signal) {
        waiters.computeIfPresent(jobId, (key, set) -> {
            set.remove(signal);
            return set.isEmpty() ? null : set;
        });
    }

    /** Whether any registration waits now (one made after this call reads before it waits). */
    public boolean hasWaiters() {
        return !waiters.isEmpty();
    }

    public void signal(UUID jobId) {
        Set<CompletableFuture<Void>> set = waiters.get(jobId);
        if (set != null) {
            set.forEach(signal -> signal.complete(null));
        }
    }

    public void signalAll(Collection<UUID> jobIds) {
        if (hasWaiters()) {
            jobIds.forEach(this::signal);
        }
    }
}
