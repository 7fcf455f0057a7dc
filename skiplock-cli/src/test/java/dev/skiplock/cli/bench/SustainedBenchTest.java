package dev.skiplock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The sustained bench's windows and pickups (its figures come from these). */
class SustainedBenchTest {
    @Test
    void aRunEndsWithAShorterWindowWhenItsSecondsAreNotAMultipleOfTen() {
        assertThat(SustainedBench.windowEnds(15, 10)).containsExactly(10L, 15L);
        assertThat(SustainedBench.windowEnds(20, 10)).containsExactly(10L, 20L);
        assertThat(SustainedBench.windowEnds(2, 10)).containsExactly(2L);
    }

    @Test
    void aJobStartedBeforeItsEnqueueReturnedCountsAsAPickupOfZero() {
        SustainedBench.Pickups pickups = new SustainedBench.Pickups();
        UUID early = UUID.randomUUID();
        UUID usual = UUID.randomUUID();

        pickups.started(early, 1_000_000);
        pickups.enqueued(early, 3_000_000);
        pickups.enqueued(usual, 10_000_000);
        pickups.started(usual, 12_000_000);

        assertThat(pickups.drain()).containsExactly(0.0, 2.0);
        assertThat(pickups.drain()).isEmpty();
    }
}
