package dev.skiplock.internal.engine;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** Waits on the worker's own threads during a shutdown. */
final class Threads {
    private Threads() {
    }

    /**
     * Waits until {@code thread} has ended or {@code limit} has passed, whatever interrupts the
     * caller meanwhile: a shutdown's stage ends before the next begins, unless it hangs (a
     * statement on a connection cut without a reset). Returns true if the caller was interrupted,
     * for the caller to restore once the shutdown is done.
     */
    static boolean joinUninterruptibly(Thread thread, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        boolean interrupted = false;
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    thread.join(Duration.ofNanos(left));
                }
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }

    /**
     * Lets the tasks of {@code threads} end for up to {@code limit}, then interrupts those still
     * running; an interrupt of the caller ends the wait at once. Returns true if it did.
     */
    static boolean endWithin(ExecutorService threads, Duration limit) {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(limit.toNanos(), TimeUnit.NANOSECONDS)) {
                threads.shutdownNow();
            }
            return false;
        } catch (InterruptedException e) {
            threads.shutdownNow();
            return true;
        }
    }
}
