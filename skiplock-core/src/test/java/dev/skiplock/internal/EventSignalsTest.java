package dev.skiplock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Followers of one job's events register and leave concurrently; no registration is left unwoken. */
class EventSignalsTest {

    /**
     * Follower B registers for a job while follower A, the only one before it, leaves. The
     * interleaving is forced: B's signal is added to the job's set while A's leaving runs. Were the
     * add made outside the map entry's lock, A's leaving would empty the set and remove it, and B's
     * signal would land in a set nobody signals any more (it then waited for its one-second re-read).
     * Under the lock, A's leaving waits for B's add (the pause below ends by itself, at most after a
     * second), and the signal reaches B.
     */
    @Test
    void aFollowerRegisteringWhileTheOnlyOtherLeavesIsSignalled() throws Exception {
        UUID job = UUID.randomUUID();
        CountDownLatch bAdding = new CountDownLatch(1);
        CountDownLatch aLeft = new CountDownLatch(1);
        EventSignals signals = new EventSignals(() -> new PausingSet(bAdding, aLeft));
        CompletableFuture<Void> a = signals.register(job);

        AtomicReference<CompletableFuture<Void>> b = new AtomicReference<>();
        Thread follower = Thread.ofPlatform().start(() -> b.set(signals.register(job)));
        assertThat(bAdding.await(10, TimeUnit.SECONDS)).isTrue();
        signals.await(job, a, 0); // A leaves: its signal is removed, and its set if empty
        aLeft.countDown();
        follower.join();

        signals.signal(job);
        assertThat(b.get()).isDone();
        assertThat(signals.hasWaiters()).isTrue();
    }

    /** A job's set whose second add (B's) waits for A to leave, or a second at most. */
    private static final class PausingSet extends java.util.AbstractSet<CompletableFuture<Void>> {
        private final Set<CompletableFuture<Void>> registered = ConcurrentHashMap.newKeySet();
        private final CountDownLatch adding;
        private final CountDownLatch left;

        PausingSet(CountDownLatch adding, CountDownLatch left) {
            this.adding = adding;
            this.left = left;
        }

        @Override
        public boolean add(CompletableFuture<Void> signal) {
            if (!registered.isEmpty()) {
                adding.countDown();
                try {
                    left.await(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return registered.add(signal);
        }

        @Override
        public boolean remove(Object signal) {
            return registered.remove(signal);
        }

        @Override
        public java.util.Iterator<CompletableFuture<Void>> iterator() {
            return registered.iterator();
        }

        @Override
        public int size() {
            return registered.size();
        }
    }
}
