package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.HeldAttempt;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A claimer's floor: where its next claim starts, moved by its claims and lowered by its look-behind. */
class QueueFloorTest {
    private static final Instant T = Instant.parse("2026-11-27T10:00:00Z");

    private final QueueFloor floor = new QueueFloor();

    private static Claimed claimed(int priority, Instant availableAt) {
        return claimed(priority, availableAt, UUID.randomUUID());
    }

    private static Claimed claimed(int priority, Instant availableAt, UUID id) {
        Job job = Job.builder().id(id).priority(priority).availableAt(availableAt).build();
        return new Claimed(job, new HeldAttempt(id, 1, UUID.randomUUID()), UUID.randomUUID(), 0, 0);
    }

    private static ClaimFloor at(Claimed claimed) {
        return ClaimFloor.of(claimed.job());
    }

    @Test
    void theFloorStaysAtItsPriorityWhileClaimsTakeJobsOfIt() {
        assertThat(floor.current()).isNull();
        floor.claimed(null, List.of());
        assertThat(floor.current()).as("nothing claimed: still from the start").isNull();

        Claimed last = claimed(0, T.plusSeconds(2));
        floor.claimed(null, List.of(last, claimed(0, T), claimed(-1, T.plusSeconds(9))));
        assertThat(floor.current()).as("the highest priority taken").isEqualTo(at(last));

        last = claimed(0, T.plusSeconds(3));
        floor.claimed(floor.current(), List.of(claimed(-1, T.plusSeconds(10)), last, claimed(5, T.plusSeconds(60))));
        assertThat(floor.current()).as("took jobs of its priority").isEqualTo(at(last));

        floor.claimed(floor.current(), List.of(claimed(0, T.minusSeconds(1))));
        assertThat(floor.current()).as("never back within its priority").isEqualTo(at(last));

        Claimed lower = claimed(-1, T.plusSeconds(11));
        floor.claimed(floor.current(), List.of(lower));
        assertThat(floor.current()).as("took none of its priority").isEqualTo(at(lower));

        Claimed higher = claimed(0, T.plusSeconds(20));
        floor.claimed(floor.current(), List.of(higher, claimed(-5, T.plusSeconds(30))));
        assertThat(floor.current()).isEqualTo(at(higher));
    }

    /** Jobs enqueued in one transaction share their available_at: the ids order them, unsigned as the databases compare. */
    @Test
    void jobsOfOneTimeAreOrderedByTheirIdsAsTheDatabasesOrderThem() {
        UUID small = UUID.fromString("01900000-0000-7000-8000-000000000001");
        UUID large = UUID.fromString("81900000-0000-7000-8000-000000000000"); // negative as a signed long
        floor.claimed(null, List.of(claimed(0, T, large), claimed(0, T, small)));
        assertThat(floor.current().id()).isEqualTo(large);

        ClaimFloor floorAtLarge = floor.current();
        assertThat(floorAtLarge.strands(new ClaimFloor(0, T, small))).isTrue();
        assertThat(floorAtLarge.strands(new ClaimFloor(0, T, large))).isFalse();
        assertThat(floorAtLarge.strands(new ClaimFloor(0, T.minusMillis(1), small))).as("recent").isFalse();
        assertThat(floorAtLarge.strands(new ClaimFloor(0, T.minus(ClaimFloor.LAG), small))).as("recent").isFalse();
        assertThat(floorAtLarge.strands(new ClaimFloor(0, T.minus(ClaimFloor.LAG).minusNanos(1000), large))).isTrue();
    }

    @Test
    void theLookBehindLowersTheFloorOnlyToAJobItsClaimsWouldMiss() {
        floor.claimed(null, List.of(claimed(0, T)));
        ClaimFloor seen = floor.current();

        assertThat(floor.lookBehind(priority -> Optional.empty())).isFalse();
        ClaimFloor recent = new ClaimFloor(0, T.minus(ClaimFloor.LAG), UUID.randomUUID());
        assertThat(floor.lookBehind(priority -> Optional.of(recent))).isFalse();
        assertThat(floor.current()).isSameAs(seen);

        ClaimFloor behind = new ClaimFloor(0, recent.availableAt().minusMillis(1), UUID.randomUUID());
        assertThat(floor.lookBehind(priority -> {
            assertThat(priority).isZero();
            return Optional.of(behind);
        })).isTrue();
        assertThat(floor.current()).isEqualTo(behind);
    }

    /**
     * Forced interleaving: the look-behind lowers the floor while a claim that started from the
     * old floor is in flight; that claim's end must not move the floor past the stranded job.
     */
    @Test
    void aClaimInFlightDoesNotUndoALoweringMadeMeanwhile() {
        floor.claimed(null, List.of(claimed(0, T)));
        ClaimFloor used = floor.current();
        Claimed stranded = claimed(0, T.minus(Duration.ofHours(1)));

        assertThat(floor.lookBehind(priority -> Optional.of(at(stranded)))).isTrue();
        floor.claimed(used, List.of(claimed(0, T.plusSeconds(5))));
        assertThat(floor.current()).isEqualTo(at(stranded));

        ClaimFloor lowered = floor.current();
        Claimed next = claimed(0, T.plusSeconds(6));
        floor.claimed(lowered, List.of(stranded, next));
        assertThat(floor.current()).isEqualTo(at(next));
    }

    /** Forced interleaving the other way: the claimer moves the floor while the look-behind reads. */
    @Test
    void aLookBehindWhoseReadRacedAClaimStillLowersTheNewFloor() {
        floor.claimed(null, List.of(claimed(0, T)));
        ClaimFloor stranded = new ClaimFloor(0, T.minus(Duration.ofHours(1)), UUID.randomUUID());

        assertThat(floor.lookBehind(priority -> {
            floor.claimed(floor.current(), List.of(claimed(0, T.plusSeconds(5))));
            return Optional.of(stranded);
        })).isTrue();
        assertThat(floor.current()).isEqualTo(stranded);
    }
}
