package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A warning repeated for every job: the first is logged, then one per interval with a count of the rest. */
class WarningPaceTest {
    private final AtomicLong now = new AtomicLong(5_000);
    private final WarningPace pace = new WarningPace(Duration.ofSeconds(60), now::get);

    @Test
    void theFirstIsLoggedThenOnePerIntervalSayingHowManyWereLeftOut() {
        assertThat(pace.take()).isZero();
        for (int i = 0; i < 1_000; i++) {
            now.addAndGet(Duration.ofMillis(50).toNanos());
            assertThat(pace.take()).isEqualTo(-1);
        }
        now.addAndGet(Duration.ofSeconds(10).toNanos()); // 60 s after the first

        assertThat(pace.take()).isEqualTo(1_000);
        assertThat(pace.take()).isEqualTo(-1);
        now.addAndGet(Duration.ofSeconds(60).toNanos());
        assertThat(pace.take()).isEqualTo(1);
    }

    @Test
    void aWarningAfterAQuietIntervalIsLoggedWithNothingLeftOut() {
        assertThat(pace.take()).isZero();
        now.addAndGet(Duration.ofMinutes(5).toNanos());

        assertThat(pace.take()).isZero();
        assertThat(WarningPace.leftOutNote(0)).isEmpty();
        assertThat(WarningPace.leftOutNote(3)).isEqualTo(" (3 more like it left out since the last one logged)");
    }

    @Test
    void aNanoTimeNearItsWrapStillPaces() {
        AtomicLong wrapping = new AtomicLong(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
        WarningPace nearWrap = new WarningPace(Duration.ofSeconds(60), wrapping::get);

        assertThat(nearWrap.take()).isZero();
        wrapping.addAndGet(Duration.ofMillis(1).toNanos()); // before the wrap: due lies past it, negative
        assertThat(nearWrap.take()).isEqualTo(-1);
        wrapping.addAndGet(Duration.ofSeconds(30).toNanos()); // past Long.MAX_VALUE: wraps negative
        assertThat(nearWrap.take()).isEqualTo(-1);
        wrapping.addAndGet(Duration.ofSeconds(31).toNanos());
        assertThat(nearWrap.take()).isEqualTo(2);
    }
}
