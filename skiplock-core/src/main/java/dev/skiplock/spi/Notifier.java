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

        /** A cancel was requested for running job {@code jobId}. */
        void cancelRequested(UUID jobId);

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

    void start(Listener listener);

    @Override
    void close();
}
