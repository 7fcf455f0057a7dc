package dev.skiplock.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * A UTC clock a test moves by hand: time passes only when the test says so. Give it to your own code
 * (the time it schedules jobs by), to {@link dev.skiplock.SkiplockConfig.Builder#clock} (the worker's
 * own time: when a timeout is due) and to {@link SkiplockTesting#runDue} (which jobs are due).
 * Thread-safe.
 */
public final class TestClock extends Clock {
    private volatile Instant now;

    /** A clock standing at the current time, to the millisecond (the precision the database keeps). */
    public TestClock() {
        this(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }

    public TestClock(Instant start) {
        if (start == null) {
            throw new IllegalArgumentException("start: is required");
        }
        this.now = start;
    }

    /** Moves this clock forward by {@code duration} (zero or positive); returns it. */
    public synchronized TestClock advance(Duration duration) {
        if (duration == null || duration.isNegative()) {
            throw new IllegalArgumentException("duration: must be zero or positive, got " + duration);
        }
        now = now.plus(duration);
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a TestClock is UTC only");
    }

    @Override
    public String toString() {
        return "TestClock[" + now + "]";
    }
}
