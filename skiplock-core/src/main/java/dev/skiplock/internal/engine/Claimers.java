package dev.skiplock.internal.engine;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/** This worker's claimers, one per queue; routes wake-ups to the claimer of their queue. */
final class Claimers implements Waker {
    private final List<QueueClaimer> claimers;
    /** When the last claim made on the notifier's thread ended, and how long it took (System.nanoTime). */
    private volatile long listenerClaimEnded = System.nanoTime();
    private volatile long listenerClaimTook;

    Claimers(List<QueueClaimer> claimers) {
        this.claimers = List.copyOf(claimers);
    }

    /** Starts every claimer, their look-behinds on {@code lookBehinds}. */
    void start(ScheduledExecutorService lookBehinds) {
        claimers.forEach(claimer -> claimer.start(lookBehinds));
    }

    /**
     * Stops every queue's claimer, waiting for them at most {@code limit} in all; true if the caller
     * was interrupted meanwhile (each is stopped all the same).
     */
    boolean stop(java.time.Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        claimers.forEach(QueueClaimer::stop); // all at once: one that hangs must not keep the others claiming
        boolean interrupted = false;
        for (QueueClaimer claimer : claimers) {
            interrupted |= claimer.awaitStopped(deadline);
        }
        return interrupted;
    }

    @Override
    public void wake(String queue) {
        for (QueueClaimer claimer : claimers) {
            if (claimer.queue().equals(queue)) {
                claimer.wake();
            }
        }
    }

    /**
     * Jobs were enqueued on {@code queue} (a notification, on the notifier's own thread): its
     * claimer claims on this thread if it sleeps ({@link QueueClaimer#claimNotified}), unless the
     * last claim this thread made ended less than that claim's own time ago; then the claimer is
     * woken. So the thread spends at most about half its time claiming: notifications that come
     * faster than it claims (many producers, many queues) are gathered by the claimers' doorbells
     * into a round each, as before, rather than wait in line for a round each, cancels behind them.
     */
    void claimNotified(String queue) {
        long now = System.nanoTime();
        boolean spaced = now - listenerClaimEnded >= listenerClaimTook;
        for (QueueClaimer claimer : claimers) {
            if (claimer.queue().equals(queue)) {
                if (!spaced) {
                    claimer.wake();
                } else if (claimer.claimNotified()) {
                    long ended = System.nanoTime();
                    listenerClaimTook = ended - now;
                    listenerClaimEnded = ended;
                }
            }
        }
    }

    @Override
    public void orphansAvailable(String queue) {
        for (QueueClaimer claimer : claimers) {
            if (claimer.queue().equals(queue)) {
                claimer.adoptionDue();
            }
        }
    }

    @Override
    public void resync() {
        claimers.forEach(QueueClaimer::adoptionDue);
    }
}
