package dev.skiplock.spi;

import java.util.UUID;

/**
 * Cross-process wake-ups (PostgreSQL LISTEN/NOTIFY). Polling stays the safety net, so a lost
 * wake-up only delays a job by one poll interval and a lost cancel by one heartbeat.
 */
public interface Notifier extends AutoCloseable {
    /** What a notifier reports to the engine. Called on the notifier's thread: keep it quick. */
    interface Listener {
        /** Jobs were enqueued (committed) on {@code queue}. */
        void queueReady(String queue);

        /**
         * As {@link #queueReady}, called on a thread of the notifier's own that only delivers
         * notifications (PostgreSQL's listener), never on a caller's: a worker that serves the
         * queue and waits idle claims its jobs on this thread (a claim: one borrow of a connection
         * idle in its pool, one round trip), a thread hand-off less before each job starts.
         * Notifications read meanwhile wait for it; the worker claims here at most about half of
         * this thread's time, and wakes its claimer for the rest.
         */
        default void queueReadyOnListenerThread(String queue) {
            queueReady(queue);
        }

        /** A reaper (on any node) cleared expired leases of running jobs of {@code queue}: adopt them. */
        void orphansReaped(String queue);

        /** A cancel was requested for running job {@code jobId}. */
        void cancelRequested(UUID jobId);

        /** Events were appended to job {@code jobId} (log lines, a terminal status). */
        void eventsAppended(UUID jobId);

        /**
         * Whether anyone here waits for a job's events now. When nobody does, a notifier may drop an
         * announcement of appended events unread (a completion batch names up to 100 jobs): a
         * follower registers before it reads, so one that starts later reads those events anyway.
         */
        default boolean followsEvents() {
            return true;
        }

        /** Notifications may have been missed (reconnect): look for work everywhere. */
        void resync();
    }

    /** A notifier that never delivers anything. */
    Notifier NONE = new Notifier() {
        @Override
        public void start(Listener listener) {
        }

        @Override
        public void close() {
        }
    };

    /** Starts delivering to {@code listener} (a worker); an enqueue-only client never starts its notifier. */
    void start(Listener listener);

    /**
     * Announces committed jobs on {@code queue} after an enqueue in Skiplock's own transaction
     * (PostgreSQL: sent after the commit by one thread, so notifying enqueues do not commit one at
     * a time; an enqueue in the caller's transaction notifies in its statement instead).
     */
    default void publishQueueReady(String queue) {
    }

    /**
     * A follower of job events is about to read them and then wait: events appended from the
     * return on are announced to this notifier's listener (PostgreSQL: a completion announces its
     * jobs only while some process follows). Bounded (about a second at most) and never failing:
     * a follower reads again each second anyway. Called before every read of a follower's wait, so
     * it must be cheap once following.
     */
    default void follow() throws InterruptedException {
    }

    /** Announces a cancel request for a running job, where the database does not (see above). */
    default void publishCancel(UUID jobId) {
    }

    @Override
    void close();
}
