package dev.skiplock.internal.engine;

import dev.skiplock.SkiplockConfig;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The clock the engine measures its own time with ({@link SkiplockConfig#clock()}). With the default
 * system clock it is this monotonic one instead: the wall time at start plus the JVM's monotonic
 * timer, so an NTP step or a clock set by hand neither delays a timeout nor stops a busy claimer's
 * orphan search. A clock the application configured (a test's settable clock) is used as given.
 */
final class WorkerClock extends Clock {
    private static final WorkerClock MONOTONIC = new WorkerClock();

    private final long wallMillisAtStart = System.currentTimeMillis();
    private final long nanosAtStart = System.nanoTime();

    private WorkerClock() {
    }

    static Clock of(SkiplockConfig config) {
        return config.clock().equals(Clock.systemUTC()) ? MONOTONIC : config.clock();
    }

    @Override
    public Instant instant() {
        long elapsedNanos = System.nanoTime() - nanosAtStart;
        return Instant.ofEpochMilli(wallMillisAtStart).plusNanos(elapsedNanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** The engine reads instants only; a zone is never needed, so none other is offered. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!zone.equals(ZoneOffset.UTC)) {
            throw new UnsupportedOperationException("the worker's clock is UTC only");
        }
        return this;
    }
}
