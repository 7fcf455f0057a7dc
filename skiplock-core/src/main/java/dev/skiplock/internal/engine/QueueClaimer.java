package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.Claimed;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs of one queue for this worker: as many as it has free slots and holds ({@link Slots};
 * at most the claim batch size), in one statement from its {@link QueueFloor}, hands each to the
 * {@link JobRunner}, then sleeps until woken (enqueue, freed slot or holds while work remains, reaper,
 * its {@link LookBehind}) or the poll interval passes. The loop never dies: a failing database (or
 * an Error) is logged and retried with backoff. An enqueue notified while the claimer sleeps is
 * claimed on the notifier's thread ({@link #claimNotified}); one round runs at a time, on either
 * thread.
 */
final class QueueClaimer {
    private static final Logger LOG = LoggerFactory.getLogger(QueueClaimer.class);

    private final String queue;
    /** The most jobs one statement claims ({@code SkiplockConfig.claimBatchSize}). */
    private final int claimBatchSize;
    private final Duration pollInterval;
    private final Clock clock;
    private final Claims claims;
    private final Counters counters;
    private final Doorbell doorbell = new Doorbell();
    private final Slots slots;
    private final Thread thread;
    /** Held by the round under way, on the claimer's thread or the notifier's: its state is one thread's at a time. */
    private final ReentrantLock rounds = new ReentrantLock();
    /** The claimer's thread waits for a wake-up: no round of its own is under way or about to start. */
    private volatile boolean sleeping;
    /** When the last round, on either thread, ended (System.nanoTime): the poll interval counts from it. */
    private volatile long lastRoundEnded = System.nanoTime();
    private volatile boolean running = true;
    private volatile boolean adoptionDue = true;
    /** Where the next claim starts (issue #12, held snapshots); lowered by the look-behind. */
    private final QueueFloor floor = new QueueFloor();
    /** Finds jobs left behind the floor (a job whose enqueue committed long after it began); null where claims ignore the floor. */
    private final LookBehind lookBehind;
    private long lastAdoptionMillis;
    /** How a claimed job and an adopted orphan start (made once: nothing is made between taking a slot and its start). */
    private final BiConsumer<Claimed, Slots> starting;
    private final BiConsumer<Claimed, Slots> adopting;

    QueueClaimer(String queue, int concurrency, int claimBatchSize, Duration pollInterval, Clock clock, Claims claims,
            JobRunner runner, Counters counters) {
        this.queue = queue;
        this.counters = counters;
        this.claimBatchSize = claimBatchSize;
        this.slots = new Slots(concurrency, claimBatchSize, doorbell);
        this.pollInterval = pollInterval;
        this.clock = clock;
        this.lastAdoptionMillis = clock.millis();
        this.claims = claims;
        this.starting = runner::start;
        this.adopting = runner::adopt;
        this.thread = Thread.ofPlatform().name("skiplock-claim-" + queue).daemon().unstarted(this::loop);
        this.lookBehind = claims.fromFloor() ? new LookBehind(queue, pollInterval, floor,
                priority -> claims.firstClaimable(queue, priority), this::wake) : null;
    }

    String queue() {
        return queue;
    }

    /** Starts claiming, and the look-behind on {@code lookBehinds} (see {@link LookBehind#start}). */
    void start(ScheduledExecutorService lookBehinds) {
        if (lookBehind != null) {
            lookBehind.start(lookBehinds); // first: the claimer's first short claim asks for a look
        }
        thread.start();
    }

    /** Stops claiming: the claimer's thread ends after the round under way ({@link #awaitStopped}). */
    void stop() {
        running = false;
        if (lookBehind != null) {
            lookBehind.stop();
        }
        wake();
    }

    /**
     * Waits until the claimer's thread, {@link #stop stopped}, ends and a round under way on the
     * notifier's thread has started its jobs, or {@code deadlineNanos} (System.nanoTime) passes;
     * true if the caller was interrupted meanwhile. A round that takes the lock after this has
     * seen the stop and claims nothing.
     */
    boolean awaitStopped(long deadlineNanos) {
        boolean interrupted = Threads.joinUninterruptibly(thread,
                java.time.Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
        boolean ended = !thread.isAlive();
        while (ended) { // until the round under way ends or the deadline passes, whatever interrupts the caller
            try {
                ended = rounds.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (ended) {
                    rounds.unlock();
                }
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (!ended) {
            LOG.warn("the claimer of queue {} did not stop in time (a statement hung?); going on with the shutdown",
                    queue);
        }
        return interrupted;
    }

    /** New jobs may be claimable now. */
    void wake() {
        doorbell.ring();
    }

    /**
     * Jobs were enqueued on this queue (a notification, on the notifier's own thread): while the
     * claimer's thread sleeps, no claimer was told to look for orphans and a connection waits idle in
     * the pool, the round runs here and now, a claim alone (one borrow); else the claimer is woken.
     * Issue #12: waking the sleeping claimer put a thread hand-off, about 0.2 ms at the harness's 50
     * jobs a second, before each job's claim. A round that may have left jobs, or fails, wakes the
     * claimer, whose loop goes on (and backs off); so does one after which the look once per poll
     * interval is due: the claimer's round makes it, after its own claim, with the slots left (before,
     * the notification that found the look due went to the claimer, and at 50 jobs a second every
     * fiftieth job waited for that hand-off). Returns whether the round ran here. The idle count is a
     * moment's: a connection another thread takes first leaves this one waiting in the pool as the
     * claimer's thread would have (the pool's connection timeout at most), and the notifications
     * behind it wait too; a claim that then fails gives its jobs back ({@link Claims#claim}) here.
     */
    boolean claimNotified() {
        if (!sleeping || !claims.hasIdleConnection() || !rounds.tryLock()) {
            wake();
            return false;
        }
        // stopped (the claimer's thread sees it), the claimer's own round next, or told to look
        // (orphans go first, DESIGN §2: the claimer's thread looks before it claims)
        if (!running || !sleeping || adoptionDue) {
            rounds.unlock();
            wake();
            return false;
        }
        try {
            counters.wokeUp(queue, true);
            if (claimOnce(true) || adoptionDue || lookDue()) {
                wake(); // more may wait, a reaper asked for a look meanwhile, or the periodic look is due: the claimer's round
            }
        } catch (RuntimeException | Error e) {
            // debug only: the claimer's round, woken now, meets a failure that lasts and warns of it
            LOG.debug("a claim of queue {} on the notifier's thread failed; the claimer tries again: {}", queue,
                    Timers.reason(e));
            wake();
        } finally {
            lastRoundEnded = System.nanoTime();
            rounds.unlock();
        }
        return true;
    }

    /** Whether the look for orphans once per poll interval is due; under {@link #rounds}. */
    private boolean lookDue() {
        return clock.millis() - lastAdoptionMillis >= pollInterval.toMillis();
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
                boolean mayHaveMore;
                rounds.lock();
                try {
                    if (!running) {
                        break; // stopped while a round on the notifier's thread held the lock
                    }
                    mayHaveMore = claimOnce(false);
                } finally {
                    lastRoundEnded = System.nanoTime();
                    rounds.unlock();
                }
                backoffMillis = 100;
                if (!mayHaveMore) {
                    counters.wokeUp(queue, awaitWakeUp(pollInterval.toMillis()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                // An Error too (out of memory, say): a claimer that died would leave its worker
                // heartbeating and serving its queue in the registry without ever claiming again.
                LOG.warn("claiming from queue {} failed; retrying in {} ms: {}", queue, backoffMillis, Timers.reason(e));
                try {
                    backOff(backoffMillis);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoffMillis = Math.min(backoffMillis * 2, 10_000);
            }
        }
    }

    /**
     * One round; true if it used every slot it took, so more jobs are probably waiting.
     * {@code claimOnly}: no look for orphans, however due (a round on the notifier's thread: one
     * statement; the claimer's own round makes the look).
     */
    private boolean claimOnce(boolean claimOnly) {
        Round round = new Round(slots.take(claimBatchSize));
        if (round.taken == 0) {
            return false;
        }
        try {
            // Orphans are looked for when the claimer is told and at least once per poll interval
            // however busy the queue: a claimer woken by a steady stream of enqueue notifications
            // never reaches its poll timeout, and the reaper that found the orphan may run on a node
            // whose notification was lost (the orphan then waited for the traffic to stop).
            // Told (adoptionDue: at start, by a reaper or a reconnected listener, after a wait that
            // no wake-up ended, after a look that filled every free slot), the claimer looks before
            // it claims: orphans go first (DESIGN §2). The look once per poll interval, a backstop
            // for lost notifications, runs after the claim with the slots it left, so that a job
            // whose enqueue woke the claimer does not wait for it (issue #12: at 50 jobs a second it
            // put 1 ms before every fiftieth job's start); a claim that left no slot makes it a told
            // look, the first thing of the next round.
            boolean told = !claimOnly && adoptionDue;
            boolean lookDue = !claimOnly && !told && lookDue();
            if (told) {
                adopt(round);
            }
            ClaimFloor from = floor.current();
            List<Claimed> claimed = round.taken > round.used ? claims.claim(queue, from, round::claimable) : List.of();
            floor.claimed(from, claimed);
            boolean tookFewer = claimed.size() < round.taken - round.used;
            Throwable notStarted = null;
            for (Claimed job : claimed) {
                round.used++;
                notStarted = start(job, starting, notStarted);
            }
            rethrow(notStarted); // after the rest of the claim started: the loop backs off
            if (tookFewer && lookBehind != null) {
                lookBehind.ask();
            }
            if (lookDue) {
                if (round.taken > round.used) {
                    adopt(round);
                } else {
                    adoptionDue = true;
                }
            } else if (round.used == round.taken) {
                lookWhenASlotFrees(claimOnly);
            }
            boolean backlog = round.used == round.taken;
            slots.backlog(backlog);
            return backlog;
        } finally {
            slots.giveBack(round.taken - round.used);
        }
    }

    /**
     * Starts a claimed job or an adopted orphan ({@code how}). One that cannot start is handed on by
     * the reaper ({@link JobRunner#start}) and the rest of its claim still start; returns the first
     * such failure of the claim ({@code first}, or this one), which the round throws once all started,
     * so that a failure that lasts (memory short, say) makes the claimer back off rather than claim
     * the whole queue at once.
     */
    private Throwable start(Claimed job, BiConsumer<Claimed, Slots> how, Throwable first) {
        try {
            how.accept(job, slots);
            return first;
        } catch (RuntimeException | Error e) {
            LOG.warn("job {} of queue {} was taken but could not start; its lease lapses and the reaper hands it on: {}",
                    job.job().id(), queue, Timers.reason(e));
            return first != null ? first : e;
        }
    }

    private static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }

    /**
     * A round on the notifier's thread that takes every free slot while the look once per poll
     * interval is due makes it a told look, as the claimer's own round does: the claimer's thread
     * then makes the next round, which looks first. Else the next slot freed could go to the
     * notifier's thread again, and again, and the look waited for as long as it won them. (A round
     * that found no slot free leaves the look as it is: the claimer's round that a freed slot rings
     * claims a waiting job first, then looks, ProtocolRaceContract's
     * aWaitingJobStartsBeforeTheLookForOrphansThatCameDue.)
     */
    private void lookWhenASlotFrees(boolean claimOnly) {
        if (claimOnly && lookDue()) {
            adoptionDue = true;
        }
    }

    /**
     * Adopts orphans into the slots {@code round} has not used. The flag is cleared before the look
     * and only ever set after it, so a reaper that tells the claimer during the look is not lost; a
     * look that fails leaves it set, and the next round looks again.
     */
    private void adopt(Round round) {
        adoptionDue = false;
        int free = round.taken - round.used;
        List<Claimed> orphans;
        try {
            orphans = claims.adopt(queue, free);
        } catch (RuntimeException e) {
            adoptionDue = true;
            throw e;
        }
        lastAdoptionMillis = clock.millis();
        if (orphans.size() == free) {
            adoptionDue = true; // every free slot took an orphan: more may wait
        }
        Throwable notStarted = null;
        for (Claimed orphan : orphans) {
            round.used++;
            notStarted = start(orphan, adopting, notStarted);
        }
        rethrow(notStarted);
    }

    /** The slots one round took and how many of them it used. */
    private final class Round {
        int taken;
        int used;

        Round(int taken) {
            this.taken = taken;
        }

        /**
         * How many jobs the claim may take, asked when its statement is about to run: the slots
         * freed since the round began (while the claim waited for a connection or, on SQLite, for
         * the write lock) are taken too, up to the claim batch size.
         */
        int claimable() {
            taken += slots.takeMore(claimBatchSize - taken);
            return taken - used;
        }
    }

    /**
     * Waits out a failed round's backoff, which only a stop ends early: the round after it sees what
     * a wake-up during it (an enqueue, a slot given back by a job that could not start) announced.
     * Before, any wake-up ended it, so a failure that lasted was retried at the rate of the queue's
     * wake-ups. A backoff that no wake-up came into makes adoption due, as a poll interval does.
     */
    private void backOff(long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        boolean woken = false;
        for (long left = millis; running && left > 0; left = millisUntil(end)) {
            woken |= doorbell.await(left);
        }
        if (!woken) {
            adoptionDue = true;
        }
    }

    /** Whole milliseconds until {@code end} (nanoTime), rounded up: a wait of that long does not end early. */
    private static long millisUntil(long end) {
        return Math.ceilDiv(end - System.nanoTime(), 1_000_000L);
    }

    /**
     * Sleeps until woken or {@code millis} pass since the last round; a poll interval that passed
     * unwoken, with no round on the notifier's thread either, makes adoption due. True if it was
     * woken. (Counted from the rounds the notifier's thread ran meanwhile, else a claimer whose
     * queue's jobs that thread claimed timed out once each interval, and looked for orphans before
     * it claimed.)
     */
    private boolean awaitWakeUp(long millis) throws InterruptedException {
        sleeping = true;
        try {
            long pollNanos = TimeUnit.MILLISECONDS.toNanos(millis);
            for (long end = lastRoundEnded + pollNanos; running; end = lastRoundEnded + pollNanos) {
                if (end - System.nanoTime() <= 0) {
                    adoptionDue = true;
                    return false;
                }
                if (doorbell.await(millisUntil(end))) {
                    return true;
                }
            }
            return true;
        } finally {
            sleeping = false;
        }
    }
}
