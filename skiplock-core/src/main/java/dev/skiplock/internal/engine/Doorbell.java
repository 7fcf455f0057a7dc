package dev.skiplock.internal.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A wake-up signal for one waiting thread that is never lost: a ring while nobody waits is kept
 * for the next wait. Lets a freed slot and a notification wake a claimer without holding it.
 * Thread-safe.
 */
final class Doorbell {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition rung = lock.newCondition();
    private boolean pending;

    void ring() {
        lock.lock();
        try {
            pending = true;
            rung.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a ring, at most {@code millis}; true if it rang (also before this call), false if the time ran out. */
    boolean await(long millis) throws InterruptedException {
        lock.lock();
        try {
            boolean rang = pending || rung.await(millis, TimeUnit.MILLISECONDS);
            pending = false;
            return rang;
        } finally {
            lock.unlock();
        }
    }
}
