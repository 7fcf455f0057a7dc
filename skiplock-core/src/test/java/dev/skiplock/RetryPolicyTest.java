package dev.skiplock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void delayDoublesPerAttemptUpToTheCap() {
        RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(10), 0);
        assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(policy.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
        assertThat(policy.delayAfter(900)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void jitterStaysWithinItsFraction() {
        RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(10), Duration.ofSeconds(10), 0.1);
        for (int i = 0; i < 1000; i++) {
            assertThat(policy.delayAfter(1)).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(11));
        }
    }

    @Test
    void invalidSettingsNameTheirField() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(-1), Duration.ofSeconds(1), 0))
                .hasMessageStartingWith("retryBase:");
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1), 0))
                .hasMessageStartingWith("retryCap:");
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), 2))
                .hasMessageStartingWith("retryJitter:");
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(1), java.time.temporal.ChronoUnit.FOREVER.getDuration(), 0))
                .hasMessageStartingWith("retryCap:");
    }

    @Test
    void theLongestCapStillGivesADelay() {
        RetryPolicy policy = new RetryPolicy(Duration.ofDays(36_500), Duration.ofDays(36_500), 1);
        assertThat(policy.delayAfter(1000)).isBetween(Duration.ZERO, Duration.ofDays(73_000));
    }
}
