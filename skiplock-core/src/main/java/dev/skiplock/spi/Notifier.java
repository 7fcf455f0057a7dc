package dev.skiplock.spi;

import java.util.function.Consumer;

/**
 * Cross-process wake-ups (PostgreSQL LISTEN/NOTIFY). Polling stays the safety net, so a lost
 * wake-up only delays a job by one poll interval.
 */
public interface Notifier extends AutoCloseable {
    /** A notifier that never delivers anything. */
    Notifier NONE = new Notifier() {
        @Override
        public void start(Consumer<String> onQueueReady) {
        }

        @Override
        public void close() {
        }
    };

    /** Starts listening; {@code onQueueReady} receives the name of a queue that got jobs. */
    void start(Consumer<String> onQueueReady);

    @Override
    void close();
}
