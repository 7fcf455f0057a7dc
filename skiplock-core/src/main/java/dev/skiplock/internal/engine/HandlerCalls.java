package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.ConnectionLoss;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Database calls a handler's thread makes for Skiplock that may be sent again: one that lost its
 * connection (a database restart, a cut network) runs again on a new one, with backoff from 50 ms
 * to 1 s, for up to the lease's time, as the completer and the heartbeat ride out the same outage
 * (issue #12's fault run: a database restart failed an adopted command's first logged line, and
 * with it an attempt of a healthy job). The time counts for each call. Any other failure, one that
 * outlasts that time, or a stop of the execution ends the retries with the call's failure: on the
 * handler's thread the stop interrupts the wait between two sendings; on a thread of the
 * handler's own, which no stop interrupts, the stop is seen before the next sending.
 *
 * <p>Sent again are reads (how far a resumed execution's output got, its parents' results, its
 * checkpoints, a signal) and writes whose second sending, after a commit whose answer was lost,
 * changes nothing or only repeats: a checkpoint is kept once by its name (the second sending
 * records nothing, and {@link Steps} reads the stored one); a progress report or a step event is
 * then written twice. Not the handler's own transaction ({@code inTransaction}): what it ran is
 * the handler's, and only the handler knows whether it may run again.
 */
final class HandlerCalls {
    private static final long FIRST_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 1_000;

    private HandlerCalls() {
    }

    static <T> T retriedOnConnectionLoss(Duration budget, BooleanSupplier stopped, Supplier<T> call) {
        long deadline = System.nanoTime() + budget.toNanos();
        long backoffMillis = FIRST_BACKOFF_MILLIS;
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                if (!ConnectionLoss.causes(e) || deadline - System.nanoTime() < backoffMillis * 1_000_000
                        || stopped.getAsBoolean()) {
                    throw e;
                }
                try {
                    Thread.sleep(backoffMillis);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }
}
