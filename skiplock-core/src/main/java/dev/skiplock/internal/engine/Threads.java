package dev.skiplock.internal.engine;

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
    static boolean joinUninterruptibly(Thread thread, java.time.Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        boolean interrupted = false;
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    thread.join(java.time.Duration.ofNanos(left));
                }
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }
}
