package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.ClaimFloor;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimer's look-behind: looks for a claimable job behind its {@link QueueFloor} (an enqueue
 * that committed long after its transaction began, a backdated job), lowers the floor to it and
 * wakes the claimer. Asked for every poll interval and after a claim that took fewer jobs than it
 * asked for (such a job rang the claimer, which found nothing from its floor). One runs at a time;
 * one asked for while another runs runs after it, since that one's read may have come before the
 * job. Under a held snapshot the read walks every job claimed since, so a look starts at most once
 * per twenty times the last one's duration (at most a twentieth of one connection's time), and at
 * most once per {@link ClaimFloor#LAG} in any case; one asked for sooner waits for its turn.
 */
final class LookBehind {
    private static final Logger LOG = LoggerFactory.getLogger(LookBehind.class);
    private static final int IDLE = 0;
    private static final int ASKED = 1;
    private static final int ASKED_AGAIN = 2;

    private final String queue;
    private final Duration pollInterval;
    private final QueueFloor floor;
    private final QueueFloor.FirstClaimable firstClaimable;
    private final Runnable wakeClaimer;
    /** IDLE; a look waits for its turn or runs (ASKED); and was asked for again meanwhile (ASKED_AGAIN). */
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** Until when a look waits (read and written by one look at a time). */
    private volatile long nextNanos = System.nanoTime();
    private volatile ScheduledExecutorService thread;
    private volatile ScheduledFuture<?> periodic;

    LookBehind(String queue, Duration pollInterval, QueueFloor floor, QueueFloor.FirstClaimable firstClaimable,
            Runnable wakeClaimer) {
        this.queue = queue;
        this.pollInterval = pollInterval;
        this.floor = floor;
        this.firstClaimable = firstClaimable;
        this.wakeClaimer = wakeClaimer;
    }

    /**
     * Looks on {@code thread} (shared by the worker's look-behinds and nothing else: a look waits on
     * the database, the worker's timers must not), every poll interval. Before the claimer starts.
     */
    void start(ScheduledExecutorService thread) {
        this.thread = thread;
        long poll = Math.max(1, pollInterval.toNanos());
        periodic = thread.scheduleWithFixedDelay(this::ask, poll, poll, TimeUnit.NANOSECONDS);
    }

    void stop() {
        ScheduledFuture<?> task = periodic;
        if (task != null) {
            task.cancel(false);
        }
    }

    /** Asks for a look as soon as its turn comes. */
    void ask() {
        if (state.getAndUpdate(now -> now == IDLE ? ASKED : ASKED_AGAIN) == IDLE) {
            submit(0);
        }
    }

    private void look() {
        long started = System.nanoTime();
        long wait = nextNanos - started;
        if (wait > 0) {
            submit(wait);
            return;
        }
        boolean read = false;
        try {
            if (floor.lookBehind(firstClaimable)) {
                wakeClaimer.run();
            }
            read = true;
        } catch (RuntimeException e) {
            LOG.warn("look-behind of queue {} failed; will run again within a poll interval: {}", queue, e.getMessage());
        } finally {
            // Only a read that answered measures the walk: a failure (waiting out a connection
            // timeout, say) must not hold the next one off for twenty times as long.
            nextNanos = started + (read ? Math.max(20 * (System.nanoTime() - started), ClaimFloor.LAG.toNanos())
                    : pollInterval.toNanos());
            if (!state.compareAndSet(ASKED, IDLE)) {
                state.set(ASKED);
                submit(nextNanos - System.nanoTime());
            }
        }
    }

    private void submit(long delayNanos) {
        ScheduledExecutorService on = thread;
        if (on == null) {
            state.set(IDLE); // asked before start: the periodic look after it covers this
            return;
        }
        try {
            on.schedule(this::look, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            state.set(IDLE);
        }
    }
}
