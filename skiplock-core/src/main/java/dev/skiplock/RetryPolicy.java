package dev.skiplock;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Capped exponential backoff with jitter: the delay before attempt {@code n+1} is
 * {@code min(base * 2^(n-1), cap)}, then multiplied by a random factor in {@code [1-jitter, 1+jitter]}.
 *
 * @param jitter fraction between 0 and 1 (0.1 = ±10 %)
 */
public record RetryPolicy(Duration base, Duration cap, double jitter) {
    /**
     * The longest cap: a delay twice as long (jitter) still fits in milliseconds, and in any
     * database's time range. Declared before {@link #DEFAULT}, whose construction reads it.
     */
    private static final Duration LONGEST = Duration.ofDays(36_500);
    /** 1 s, doubling, capped at 1 h, ±10 %. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofSeconds(1), Duration.ofHours(1), 0.1);

    public RetryPolicy {
        if (base == null || base.isNegative()) {
            throw new IllegalArgumentException("retryBase: must be zero or positive");
        }
        if (cap == null || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("retryCap: must be at least retryBase");
        }
        // Delays are computed in milliseconds: a cap past what a long holds (a Duration of
        // ChronoUnit.FOREVER) threw at the first retry, on the failing job's thread.
        if (cap.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("retryCap: must be at most " + LONGEST.toDays() + " days, got " + cap);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("retryJitter: must be between 0 and 1, got " + jitter);
        }
    }

    /** The delay after failed attempt {@code attempt} (1-based). */
    public Duration delayAfter(int attempt) {
        int exponent = Math.min(Math.max(attempt - 1, 0), 40);
        double raw = base.toMillis() * Math.pow(2, exponent);
        double capped = Math.min(raw, cap.toMillis());
        double factor = jitter == 0 ? 1 : 1 + ThreadLocalRandom.current().nextDouble(-jitter, jitter);
        return Duration.ofMillis(Math.round(capped * factor));
    }
}
