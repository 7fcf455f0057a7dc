package dev.skiplock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class SkiplockConfigTest {

    @Test
    void defaultsMatchTheDesign() {
        SkiplockConfig config = SkiplockConfig.builder().build();
        assertThat(config.leaseTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.reaperInterval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(config.pollInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.rescueBound()).isEqualTo(Duration.ofSeconds(46));
        assertThat(config.queues()).isEmpty();
        assertThat(config.migrate()).isTrue();
        assertThat(config.retention()).isEqualTo(Duration.ofDays(7));
        assertThat(config.pruneInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.workerId()).matches("[A-Za-z0-9_.:-]{1,128}");
        assertThat(config.clock()).isEqualTo(Clock.systemUTC());
    }

    @Test
    void clockIsTheOneGivenAndRequired() {
        Clock fixed = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        assertThat(SkiplockConfig.builder().clock(fixed).build().clock()).isSameAs(fixed);
        assertThatThrownBy(() -> SkiplockConfig.builder().clock(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("clock:");
    }

    @Test
    void workerIdsDifferPerInstance() {
        assertThat(SkiplockConfig.builder().build().workerId())
                .isNotEqualTo(SkiplockConfig.builder().build().workerId());
    }

    @Test
    void invalidSettingsAreRejectedAtBuildNamingTheField() {
        assertThatThrownBy(() -> SkiplockConfig.builder().heartbeatInterval(Duration.ofSeconds(30)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("heartbeatInterval:");
        assertThatThrownBy(() -> SkiplockConfig.builder().queue("q", 0).build())
                .hasMessageStartingWith("concurrency:");
        assertThatThrownBy(() -> SkiplockConfig.builder().queue("bad queue", 1).build())
                .hasMessageStartingWith("queue:");
        assertThatThrownBy(() -> SkiplockConfig.builder().leaseTtl(Duration.ZERO).build())
                .hasMessageStartingWith("leaseTtl:");
        assertThatThrownBy(() -> SkiplockConfig.builder().defaultMaxAttempts(0).build())
                .hasMessageStartingWith("defaultMaxAttempts:");
        assertThatThrownBy(() -> SkiplockConfig.builder().pruneInterval(Duration.ofMillis(99)).build())
                .hasMessageStartingWith("pruneInterval:");
        assertThatThrownBy(() -> SkiplockConfig.builder().pruneInterval(null).build())
                .hasMessageStartingWith("pruneInterval:");
        assertThat(SkiplockConfig.builder().retention(Duration.ofSeconds(2)).pruneInterval(Duration.ofMillis(500))
                .build().pruneInterval()).isEqualTo(Duration.ofMillis(500));
    }

    /** Before, FOREVER threw ArithmeticException, and a retention of millennia failed PostgreSQL's every prune. */
    @Test
    void aDurationOverACenturyIsRejectedNamingTheField() {
        assertThatThrownBy(() -> SkiplockConfig.builder().retention(java.time.temporal.ChronoUnit.FOREVER.getDuration())
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("retention:");
        assertThatThrownBy(() -> SkiplockConfig.builder().retention(Duration.ofDays(2_500_000)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("retention:");
        assertThatThrownBy(() -> SkiplockConfig.builder().pruneInterval(java.time.temporal.ChronoUnit.FOREVER.getDuration())
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("pruneInterval:");
        assertThatThrownBy(() -> SkiplockConfig.builder().defaultTimeout(java.time.temporal.ChronoUnit.FOREVER.getDuration())
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("defaultTimeout:");
        assertThat(SkiplockConfig.builder().retention(SkiplockConfig.MAX_DURATION).build().retention())
                .isEqualTo(Duration.ofDays(36_500));
    }

    @Test
    void builderWithoutADatabaseIsRejected() {
        assertThatThrownBy(() -> Skiplock.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("url:");
        assertThatThrownBy(() -> Skiplock.builder().url("jdbc:h2:mem:x").build())
                .hasMessageStartingWith("url: no Skiplock driver");
    }
}
