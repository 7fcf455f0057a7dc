package dev.skiplock.internal.engine;

import java.util.UUID;

/**
 * What a {@code Skiplock} instance asks of its worker: start, stop, and the wake-ups it passes on
 * (its own enqueues and cancels, and other processes' notifications). An instance without queues
 * has {@link #NONE}, so callers never check for a missing worker.
 */
public interface Worker {
    /** The worker of an enqueue-only instance: nothing runs, every wake-up is ignored. */
    Worker NONE = new Worker() {
        @Override
        public void start() {
        }

        @Override
        public void wake(String queue) {
        }

        @Override
        public void queueNotified(String queue) {
        }

        @Override
        public void orphansAvailable(String queue) {
        }

        @Override
        public void resync() {
        }

        @Override
        public void cancelLocal(UUID jobId) {
        }

        @Override
        public void close() {
        }
    };

    void start();

    /** New jobs may be claimable in {@code queue}. */
    void wake(String queue);

    /**
     * Jobs were enqueued on {@code queue} (a notification, on the notifier's own thread): as
     * {@link #wake}, but the claim may run on the caller's thread, for about one round trip.
     */
    void queueNotified(String queue);

    /** Orphans wait in {@code queue} (this node's reaper, or another node's by notification). */
    void orphansAvailable(String queue);

    /** Notifications may have been missed: look for work and orphans in every queue now. */
    void resync();

    /** A cancel was recorded for a job this instance may be running: stop it now rather than at the next heartbeat. */
    void cancelLocal(UUID jobId);

    /** Graceful shutdown (see {@code SkiplockConfig.shutdownTimeout}). */
    void close();
}
