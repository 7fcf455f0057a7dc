package dev.skiplock.internal.engine;

/** Tells the claimers of this worker to look now; what the reaper and the notifications need of them. */
interface Waker {
    /** New jobs may be claimable in {@code queue}. */
    void wake(String queue);

    /** Orphans may wait in {@code queue}: look for them on the next round. */
    void orphansAvailable(String queue);

    /** Notifications may have been missed: every claimer looks for work and orphans now. */
    void resync();
}
