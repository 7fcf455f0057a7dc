package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.Claimed;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs of one queue for this worker: as many as it has free slots, in one statement, then
 * sleeps until woken (enqueue, freed slot while work remains, reaper) or the poll interval passes.
 * The loop never dies: a failing database is logged and retried with backoff.
 */
final class QueueFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(QueueFetcher.class);

    /** What the fetcher asks of the engine; keeps this class free of SQL and handler details. */
    interface Work {
        List<Claimed> adopt(String queue, int limit);

        List<Claimed> claim(String queue, int limit);

        void run(Claimed job, QueueFetcher fetcher);

        void takeOver(Claimed orphan, QueueFetcher fetcher);
    }

    private final String queue;
    private final Semaphore slots;
    private final Duration pollInterval;
    private final Work work;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wakeUp = lock.newCondition();
    private final Thread thread;
    private boolean signalled;
    private volatile boolean running = true;
    private volatile boolean backlog;
    private volatile boolean adoptionDue = true;
    private long lastAdoptionNanos = System.nanoTime();

    QueueFetcher(String queue, int concurrency, Duration pollInterval, Work work) {
        this.queue = queue;
        this.slots = new Semaphore(concurrency);
        this.pollInterval = pollInterval;
        this.work = work;
        this.thread = Thread.ofPlatform().name("skiplock-fetch-" + queue).daemon().unstarted(this::loop);
    }

    String queue() {
        return queue;
    }

    void start() {
        thread.start();
    }

    void stop() throws InterruptedException {
        running = false;
        wake();
        thread.join();
    }

    /** New jobs may be claimable now. */
    void wake() {
        lock.lock();
        try {
            signalled = true;
            wakeUp.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Orphans may exist (a reaper cleared leases): look for them on the next round. */
    void adoptionDue() {
        adoptionDue = true;
        wake();
    }

    /** A job of this queue finished; claim again at once if the last claim suggested more work. */
    void releaseSlot() {
        slots.release();
        if (backlog) {
            wake();
        }
    }

    private void loop() {
        long backoffMillis = 100;
        while (running) {
            try {
                boolean mayHaveMore = fetchOnce();
                backoffMillis = 100;
                if (!mayHaveMore) {
                    awaitWakeUp(pollInterval.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warn("fetching from queue {} failed; retrying in {} ms: {}", queue, backoffMillis, e.getMessage());
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

    /** One round; true if it filled every free slot, so more jobs are probably waiting. */
    private boolean fetchOnce() {
        int free = slots.drainPermits();
        if (free == 0) {
            return false;
        }
        int used = 0;
        try {
            // Orphans are looked for when a reaper said so, and at least once per poll interval
            // however busy the queue: a fetcher woken by a steady stream of enqueue notifications
            // never reaches its poll timeout, and the reaper that found the orphan may run on a node
            // whose notification was lost (the orphan then waited for the traffic to stop).
            if (adoptionDue || System.nanoTime() - lastAdoptionNanos >= pollInterval.toNanos()) {
                adoptionDue = false;
                lastAdoptionNanos = System.nanoTime();
                List<Claimed> orphans = work.adopt(queue, free);
                // Every free slot took an orphan: more may wait.
                adoptionDue = orphans.size() == free;
                for (Claimed orphan : orphans) {
                    used++;
                    work.takeOver(orphan, this);
                }
            }
            List<Claimed> claimed = free > used ? work.claim(queue, free - used) : List.of();
            for (Claimed job : claimed) {
                used++;
                work.run(job, this);
            }
            backlog = used == free;
            return backlog;
        } finally {
            slots.release(free - used);
        }
    }

    private void awaitWakeUp(long millis) throws InterruptedException {
        lock.lock();
        try {
            if (!signalled && running) {
                if (!wakeUp.await(millis, TimeUnit.MILLISECONDS)) {
                    adoptionDue = true;
                }
            }
            signalled = false;
        } finally {
            lock.unlock();
        }
    }
}
