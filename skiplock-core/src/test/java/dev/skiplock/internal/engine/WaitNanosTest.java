package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A claimed job's wait as the wait-time timer records it: nanoseconds, never negative, never wrapped. */
class WaitNanosTest {
    private static final Instant AVAILABLE = Instant.parse("2026-12-04T05:00:00.900Z");

    @Test
    void aWaitIsTheNanosecondsBetweenAvailableAndStartedAcrossASecondsBoundary() {
        Instant started = AVAILABLE.plusNanos(1_234_567_891L);
        assertThat(Counters.waitNanos(AVAILABLE, started)).isEqualTo(1_234_567_891L)
                .isEqualTo(Duration.between(AVAILABLE, started).toNanos());
    }

    @Test
    void aStartBeforeItsAvailabilityCountsAsNoWait() {
        assertThat(Counters.waitNanos(AVAILABLE, AVAILABLE.minusNanos(1))).isZero();
        assertThat(Counters.waitNanos(AVAILABLE, AVAILABLE.minusSeconds(5))).isZero();
    }

    @Test
    void aWaitTooLongForNanosecondsIsTheLargestOne() {
        assertThat(Counters.waitNanos(Instant.EPOCH.minus(Duration.ofDays(200 * 365)), Instant.EPOCH.plus(Duration.ofDays(200 * 365))))
                .isEqualTo(Long.MAX_VALUE);
    }
}
