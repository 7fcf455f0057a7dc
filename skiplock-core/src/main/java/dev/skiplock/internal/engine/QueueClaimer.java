package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.Claimed;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs of one queue for this worker: as many as it has free slots and holds ({@link Slots};
 * at most the claim batch size), in one statement, hands each to the {@link JobRunner}, then sleeps
 * until woken (enqueue, freed slot or holds while work remains, reaper) or the poll interval passes.
 * The loop never dies: a failing database is logged and retried with backoff.
 */
final class QueueClaimer {
    private static final Logger LOG = LoggerFactory.getLogger(QueueClaimer.class);

    private final String queue;
    /** The most jobs one statement claims ({@code SkiplockConfig.claimBatchSize}). */
    private final int claimBatchSize;
    private final Duration pollInterval;
    private final Clock clock;
    private final Claims claims;
    private final JobRunner runner;
    private final Counters counters;
    private final Doorbell doorbell = new Doorbell();
    private final Slots slots;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean adoptionDue = true;
    /** Where the next claim starts (issue #12, held snapshots); lowered by the look-behind. */
    private final QueueFloor floor = new QueueFloor();
    /** Until when the look-behind skips its turns (read and written by one look-behind at a time). */
    private volatile long nextLookBehindNanos = System.nanoTime();
    /** IDLE, or a look-behind waits for its turn or runs (ASKED), and was asked for again meanwhile (ASKED_AGAIN). */
    private final AtomicInteger lookBehinds = new AtomicInteger(IDLE);
    private static final int IDLE = 0;
    private static final int ASKED = 1;
    private static final int ASKED_AGAIN = 2;
    private volatile ScheduledExecutorService lookBehindThread;
    private volatile ScheduledFuture<?> periodicLookBehind;
    private long lastAdoptionMillis;

    QueueClaimer(String queue, int concurrency, int claimBatchSize, Duration pollInterval, Clock clock, Claims claims,
            JobRunner runner, Counters counters) {
        this.queue = queue;
        this.counters = counters;
        this.claimBatchSize = claimBatchSize;
        this.slots = new Slots(concurrency, claimBatchSize, doorbell);
        this.pollInterval = pollInterval;
        this.clock = clock;
        this.claims = claims;
        this.runner = runner;
        this.lastAdoptionMillis = clock.millis();
        this.thread = Thread.ofPlatform().name("skiplock-claim-" + queue).daemon().unstarted(this::loop);
    }

    String queue() {
        return queue;
    }

    /**
     * Starts claiming, and the look-behind every poll interval on {@code lookBehinds}: its own
     * thread, since the look-behind waits on the database and the worker's timers must not.
     */
    void start(ScheduledExecutorService lookBehinds) {
        this.lookBehindThread = lookBehinds;
        thread.start();
        long poll = Math.max(1, pollInterval.toNanos());
        periodicLookBehind = lookBehinds.scheduleWithFixedDelay(this::lookBehindSoon, poll, poll, TimeUnit.NANOSECONDS);
    }

    /**
     * Asks for a look-behind on a timer thread: every poll interval, and after a claim that took
     * fewer jobs than it asked for (a job whose enqueue committed long after it began rang the
     * claimer, which found nothing from its floor). One runs at a time; a request made while one
     * runs makes it run again after it, since its read may have come before the request's job.
     */
    private void lookBehindSoon() {
        if (lookBehinds.getAndUpdate(state -> state == IDLE ? ASKED : ASKED_AGAIN) == IDLE) {
            submitLookBehind(0);
        }
    }

    /**
     * Looks for a claimable job behind the claim floor (an enqueue that committed long after it
     * began, a backdated job) and wakes the claimer to take it. Under a held snapshot this read
     * walks every job claimed since, so it starts at most once per twenty times its own last
     * duration (at most a twentieth of one connection's time), and at most once per
     * {@link ClaimFloor#LAG} in any case; a look-behind asked for sooner waits for its turn.
     */
    private void lookBehind() {
        long started = System.nanoTime();
        long wait = nextLookBehindNanos - started;
        if (wait > 0) {
            submitLookBehind(wait);
            return;
        }
        boolean read = false;
        try {
            if (floor.lookBehind(priority -> claims.firstClaimable(queue, priority))) {
                wake();
            }
            read = true;
        } catch (RuntimeException e) {
            LOG.warn("look-behind of queue {} failed; will run again within a poll interval: {}", queue, e.getMessage());
        } finally {
            // Only a read that answered measures the walk: a failure (waiting out a connection
            // timeout, say) must not hold the next one off for twenty times as long.
            nextLookBehindNanos = started + (read ? Math.max(20 * (System.nanoTime() - started), ClaimFloor.LAG.toNanos())
                    : pollInterval.toNanos());
            if (!lookBehinds.compareAndSet(ASKED, IDLE)) {
                lookBehinds.set(ASKED);
                submitLookBehind(nextLookBehindNanos - System.nanoTime());
            }
        }
    }

    private void submitLookBehind(long delayNanos) {
        try {
            lookBehindThread.schedule(this::lookBehind, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            lookBehinds.set(IDLE); // the worker is closing
        }
    }

    void stop() throws InterruptedException {
        running = false;
        ScheduledFuture<?> periodic = periodicLookBehind;
        if (periodic != null) {
            periodic.cancel(false);
        }
        wake();
        thread.join();
    }

    /** New jobs may be claimable now. */
    void wake() {
        doorbell.ring();
    }

    /** Orphans may exist (a reaper cleared leases): look for them on the next round. */
    void adoptionDue() {
        adoptionDue = true;
        wake();
    }

    private void loop() {
        long backoffMillis = 100;
        while (running) {
            try {
                boolean mayHaveMore = claimOnce();
                backoffMillis = 100;
                if (!mayHaveMore) {
                    counters.wokeUp(queue, awaitWakeUp(pollInterval.toMillis()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warn("claiming from queue {} failed; retrying in {} ms: {}", queue, backoffMillis, e.getMessage());
                try {
                    awaitWakeUp(backoffMillis);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoffMillis = Math.min(backoffMillis * 2, 10_000);
            }
        }
    }

    /** One round; true if it used every slot it took, so more jobs are probably waiting. */
    private boolean claimOnce() {
        int free = slots.take(claimBatchSize);
        if (free == 0) {
            return false;
        }
        int used = 0;
        try {
            // Orphans are looked for when a reaper said so, and at least once per poll interval
            // however busy the queue: a claimer woken by a steady stream of enqueue notifications
            // never reaches its poll timeout, and the reaper that found the orphan may run on a node
            // whose notification was lost (the orphan then waited for the traffic to stop).
            if (adoptionDue || clock.millis() - lastAdoptionMillis >= pollInterval.toMillis()) {
                adoptionDue = false;
                lastAdoptionMillis = clock.millis();
                List<Claimed> orphans = claims.adopt(queue, free);
                // Every free slot took an orphan: more may wait.
                adoptionDue = orphans.size() == free;
                for (Claimed orphan : orphans) {
                    used++;
                    runner.adopt(orphan, slots);
                }
            }
            ClaimFloor from = floor.current();
            List<Claimed> claimed = free > used ? claims.claim(queue, from, free - used) : List.of();
            floor.claimed(from, claimed);
            if (claimed.size() < free - used) {
                lookBehindSoon();
            }
            for (Claimed job : claimed) {
                used++;
                runner.start(job, slots);
            }
            boolean backlog = used == free;
            slots.backlog(backlog);
            return backlog;
        } finally {
            slots.giveBack(free - used);
        }
    }

    /**
     * Sleeps until woken or {@code millis} pass; a poll interval that passed unwoken makes adoption
     * due. True if it was woken.
     */
    private boolean awaitWakeUp(long millis) throws InterruptedException {
        if (running && !doorbell.await(millis)) {
            adoptionDue = true;
            return false;
        }
        return true;
    }
}
