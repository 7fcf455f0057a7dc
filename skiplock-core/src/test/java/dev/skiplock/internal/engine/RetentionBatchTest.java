package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The jobs' prune batch follows what a batch took: jobs with many events make it smaller, so that
 * no batch holds SQLite's write lock for seconds (a thousand jobs of 2,000 lines each took 5-8 s,
 * and every enqueue, claim and heartbeat waited), and quick batches make it grow back.
 */
class RetentionBatchTest {
    @Test
    void aSlowBatchShrinksTheNextInProportion() {
        assertThat(Retention.nextBatch(1000, Duration.ofSeconds(5))).isEqualTo(50);
        assertThat(Retention.nextBatch(1000, Duration.ofMillis(500))).isEqualTo(500);
        assertThat(Retention.nextBatch(3, Duration.ofMinutes(1))).isEqualTo(1);
    }

    @Test
    void aQuickBatchGrowsTheNextUpToTheLimit() {
        assertThat(Retention.nextBatch(50, Duration.ofMillis(10))).isEqualTo(100);
        assertThat(Retention.nextBatch(800, Duration.ZERO)).isEqualTo(Retention.PRUNE_BATCH);
        assertThat(Retention.nextBatch(200, Duration.ofMillis(100))).isEqualTo(200);
    }
}
