package dev.skiplock.internal.engine;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/** This worker's claimers, one per queue; routes wake-ups to the claimer of their queue. */
final class Claimers implements Waker {
    private final List<QueueClaimer> claimers;

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

    /** Another process enqueued on {@code queue}: its claimer claims on the caller's thread if it sleeps ({@link QueueClaimer#claimNotified}). */
    void claimNotified(String queue) {
        for (QueueClaimer claimer : claimers) {
            if (claimer.queue().equals(queue)) {
                claimer.claimNotified();
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
