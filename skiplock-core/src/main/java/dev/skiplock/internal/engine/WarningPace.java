package dev.skiplock.internal.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Paces a warning that can repeat for every job (an application's tracer, context storage or
 * logging MDC that always fails): the first is logged, then at most one per interval, which says
 * how many were left out since the last one logged. A failure per job, at thousands of jobs a
 * second, must not flood the log it is reported to. Each pace is one call site's, shared by the
 * instances of a JVM (a tracer or MDC that fails is the JVM's). Thread-safe.
 */
final class WarningPace {
    static final Duration INTERVAL = Duration.ofMinutes(1);

    private final LongSupplier nanoTime;
    private final long intervalNanos;
    /** From when (nanoTime) the next warning is logged. */
    private final AtomicLong next;
    private final AtomicLong leftOut = new AtomicLong();

    WarningPace() {
        this(INTERVAL, System::nanoTime);
    }

    WarningPace(Duration interval, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.intervalNanos = interval.toNanos();
        this.next = new AtomicLong(nanoTime.getAsLong());
    }

    /**
     * Takes this occurrence: how many were left out since the last one logged (0 or more) if it is
     * to be logged, or -1 if it is left out.
     */
    long take() {
        long now = nanoTime.getAsLong();
        long due = next.get();
        if (now - due >= 0 && next.compareAndSet(due, now + intervalNanos)) {
            return leftOut.getAndSet(0);
        }
        leftOut.incrementAndGet();
        return -1;
    }

    /**
     * Logs {@code message} (whose last placeholder takes the note on those left out) with
     * {@code arguments} at WARN, unless this occurrence is left out.
     */
    void warn(Logger log, String message, Object... arguments) {
        long left = take();
        if (left >= 0) {
            Object[] withNote = java.util.Arrays.copyOf(arguments, arguments.length + 1);
            withNote[arguments.length] = leftOutNote(left);
            log.warn(message, withNote);
        }
    }

    /** What a logged warning appends about those left out before it. */
    static String leftOutNote(long leftOut) {
        return leftOut == 0 ? "" : " (" + leftOut + " more like it left out since the last one logged)";
    }
}
