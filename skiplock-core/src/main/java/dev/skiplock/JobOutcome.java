package dev.skiplock;

import java.time.Duration;

/**
 * What a handler decided. Throwing from a handler means "failed": it is retried per the
 * {@link RetryPolicy} while attempts remain.
 */
public sealed interface JobOutcome {

    /** Success; {@code result} (may be {@code null}) is stored as JSON on the job. */
    record Complete(Object result) implements JobOutcome {
    }

    /** Run again after {@code delay} without using up an attempt ({@code maxAttempts} grows by one). */
    record Snooze(Duration delay) implements JobOutcome {
        public Snooze {
            if (delay == null || delay.isNegative()) {
                throw new IllegalArgumentException("delay: must be zero or positive");
            }
            if (delay.compareTo(SkiplockConfig.MAX_DURATION) > 0) {
                throw new IllegalArgumentException("delay: must be at most 36500 days (a century), got " + delay);
            }
        }
    }

    /** Stop for good with status {@code cancelled}; {@code reason} becomes {@code lastError}. */
    record Cancel(String reason) implements JobOutcome {
    }

    /** Failed with {@code reason} as {@code lastError}, retried per policy: like throwing, with a chosen message. */
    record Fail(String reason) implements JobOutcome {
    }

    static JobOutcome complete() {
        return new Complete(null);
    }

    static JobOutcome complete(Object result) {
        return new Complete(result);
    }

    static JobOutcome snooze(Duration delay) {
        return new Snooze(delay);
    }

    static JobOutcome cancel(String reason) {
        return new Cancel(reason);
    }

    static JobOutcome fail(String reason) {
        return new Fail(reason);
    }
}
