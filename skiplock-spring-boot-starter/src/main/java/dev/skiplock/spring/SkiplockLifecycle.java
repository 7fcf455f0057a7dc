package dev.skiplock.spring;

import dev.skiplock.Skiplock;
import org.springframework.context.SmartLifecycle;

/**
 * Starts Skiplock's workers once the context is refreshed and closes Skiplock when the context
 * closes: claiming stops, running jobs may finish for {@code skiplock.shutdown-timeout}, the rest are
 * interrupted and released (queued again, their lease cleared). Its phase comes after the web server's
 * ({@link #PHASE}): workers start before it and stop after it, so requests still in flight can enqueue.
 * A closed Skiplock does not start again: a context stopped and started again (a checkpoint's
 * restore) has no worker. A pause is not a stop: Skiplock is not pauseable ({@link #isPauseable}).
 */
public final class SkiplockLifecycle implements SmartLifecycle {
    /** Below the web server's phases (Boot: {@code DEFAULT_PHASE - 1024} and {@code - 2048}). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SkiplockLifecycle.class);

    private final Skiplock skiplock;
    private volatile boolean running;
    private volatile boolean closed;

    public SkiplockLifecycle(Skiplock skiplock) {
        this.skiplock = skiplock;
    }

    @Override
    public void start() {
        if (closed) {
            LOG.warn("the context started again after a stop: Skiplock was closed at the stop and runs no worker now");
            return;
        }
        skiplock.start();
        running = true;
    }

    /** Blocks for up to {@code skiplock.shutdown-timeout} while running jobs finish. */
    @Override
    public void stop() {
        running = false;
        closed = true;
        skiplock.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Spring 7's pause leaves Skiplock running: Boot 4's test context cache pauses a cached context
     * when a test class needs another one and restarts it when one comes back, and a stop closed
     * Skiplock for good (the restarted context ran no job). Not an override on Spring 6, which has no
     * pause.
     */
    public boolean isPauseable() {
        return false;
    }
}
