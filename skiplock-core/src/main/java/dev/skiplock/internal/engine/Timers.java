package dev.skiplock.internal.engine;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The worker's timer threads, shared by the lease keeper and the timeouts (retention and the lease watch have their own). */
final class Timers {
    private static final Logger LOG = LoggerFactory.getLogger(Timers.class);

    private Timers() {
    }

    /** Two threads: a heartbeat blocked on a slow database must not delay timeouts. */
    static ScheduledThreadPoolExecutor create() {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(2,
                Thread.ofPlatform().name("skiplock-timer-", 0).daemon().factory());
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }

    /** One named thread for tasks that must not hold up the timers (they may wait on the database). */
    static ScheduledThreadPoolExecutor single(String name) {
        ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name(name).daemon().factory());
        thread.setRemoveOnCancelPolicy(true);
        return thread;
    }

    /**
     * Runs a periodic task so that it never dies: a failure is logged and the task runs again. An
     * Error too (out of memory, say): an executor runs no more of a periodic task that threw, and a
     * worker whose heartbeat stopped so would lose every lease while it runs on.
     */
    static void guarded(String task, Runnable body) {
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            LOG.warn("{} failed; will run again at its next interval: {}", task, reason(e));
        }
    }

    /** What a loop's log line says of a failure: its message, and an Error's class (a stack overflow has no message). */
    static String reason(Throwable failure) {
        return failure instanceof Error ? failure.toString() : failure.getMessage();
    }
}
