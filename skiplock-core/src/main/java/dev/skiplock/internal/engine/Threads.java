package dev.skiplock.internal.engine;

/** Waits on the worker's own threads during a shutdown. */
final class Threads {
    private Threads() {
    }

    /**
     * Waits until {@code thread} has ended, whatever interrupts the caller meanwhile: a shutdown's
     * stage must end before the next begins. Returns true if the caller was interrupted, for the
     * caller to restore once the shutdown is done.
     */
    static boolean joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }
}
