package dev.skiplock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The TestClock injected into a {@code @BeforeEach} method is the test's own: advancing it in the
 * test moves the clock the code under test was given. Before, each injection made a new clock.
 */
@SkiplockTest(database = SkiplockTest.Database.SQLITE, scope = SkiplockTest.Scope.TEST)
class TestClockInjectionTest {
    private TestClock given;

    @BeforeEach
    void handTheClockToTheCodeUnderTest(TestClock clock) {
        given = clock;
    }

    @Test
    void theTestAdvancesTheClockItsBeforeEachGot(TestClock clock) {
        assertThat(clock).isSameAs(given);
        java.time.Instant before = given.instant();
        clock.advance(Duration.ofDays(1));
        assertThat(given.instant()).isEqualTo(before.plus(Duration.ofDays(1)));
    }
}
