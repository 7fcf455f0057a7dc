package dev.skiplock.cli.bench;

import static dev.skiplock.cli.bench.ScaleOutBench.COUNT_PAUSE_MAX_NANOS;
import static dev.skiplock.cli.bench.ScaleOutBench.COUNT_PAUSE_MIN_NANOS;
import static dev.skiplock.cli.bench.ScaleOutBench.pauseBeforeCount;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The scale-out drain counts rarely while its finish is far and often as it nears. */
class ScaleOutBenchTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void beforeAnyJobIsDoneTheLongestPause() {
        assertThat(pauseBeforeCount(0, 200_000, SECOND)).isEqualTo(COUNT_PAUSE_MAX_NANOS);
    }

    @Test
    void farFromTheFinishTheLongestPause() {
        // 20,000 done in 1 s: 9 s left
        assertThat(pauseBeforeCount(20_000, 200_000, SECOND)).isEqualTo(COUNT_PAUSE_MAX_NANOS);
    }

    @Test
    void nearTheFinishHalfTheTimeLeft() {
        // 195,000 done in 10 s: 5,000 left at 19,500 a second, 256 ms; half of it is over the longest pause
        assertThat(pauseBeforeCount(195_000, 200_000, 10 * SECOND)).isEqualTo(COUNT_PAUSE_MAX_NANOS);
        // 199,000 done in 10 s: 1,000 left, 50.3 ms; the pause is half of it
        assertThat(pauseBeforeCount(199_000, 200_000, 10 * SECOND))
                .isEqualTo((long) ((double) 1_000 * 10 * SECOND / 199_000 / 2));
    }

    @Test
    void atTheFinishTheShortestPause() {
        assertThat(pauseBeforeCount(199_990, 200_000, 10 * SECOND)).isEqualTo(COUNT_PAUSE_MIN_NANOS);
        assertThat(pauseBeforeCount(200_000, 200_000, 10 * SECOND)).isEqualTo(COUNT_PAUSE_MIN_NANOS);
    }
}
