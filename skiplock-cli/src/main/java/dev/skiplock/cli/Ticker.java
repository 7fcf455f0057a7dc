package dev.skiplock.cli;

import java.time.Duration;

/** Runs an action at once and then every period on a daemon thread, until closed: redraws of live output. */
public final class Ticker implements AutoCloseable {
    private final Thread thread;

    private Ticker(String name, Duration period, Runnable action) {
        thread = Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    action.run();
                    Thread.sleep(period);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    public static Ticker start(String name, Duration period, Runnable action) {
        return new Ticker(name, period, action);
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
