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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A claimer's look-behind: asked for, it reads, lowers the floor to a job left behind it and wakes the claimer. */
class LookBehindTest {
    private static final Instant T = Instant.parse("2026-11-27T10:00:00Z");

    private final ScheduledThreadPoolExecutor thread = Timers.single("look-behind-test");
    private final QueueFloor floor = new QueueFloor();
    private final CountDownLatch woken = new CountDownLatch(1);
    private final ClaimFloor behind = new ClaimFloor(0, T.minus(Duration.ofHours(1)), UUID.randomUUID());

    @AfterEach
    void stopThread() {
        thread.shutdownNow();
    }

    private LookBehind lookBehind() {
        UUID id = UUID.randomUUID();
        Job claimed = Job.builder().id(id).priority(0).availableAt(T).build();
        floor.claimed(null, List.of(new Claimed(claimed, new HeldAttempt(id, 1, UUID.randomUUID()), UUID.randomUUID(), 0, 0)));
        // A poll interval of an hour: only an ask can make it look within the test.
        return new LookBehind("default", Duration.ofHours(1), floor, priority -> Optional.of(behind), woken::countDown);
    }

    @Test
    void anAskedForLookLowersTheFloorToAJobBehindItAndWakesTheClaimer() throws InterruptedException {
        LookBehind lookBehind = lookBehind();
        lookBehind.start(thread);

        lookBehind.ask();

        assertThat(woken.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(floor.current()).isEqualTo(behind);
    }

    /** Forced order: an ask that comes before start (a claimer that claimed first) must not leave it asked-for for good. */
    @Test
    void anAskBeforeStartDoesNotStopTheLooksAfterIt() throws InterruptedException {
        LookBehind lookBehind = lookBehind();
        lookBehind.ask();
        lookBehind.start(thread);

        lookBehind.ask();

        assertThat(woken.await(30, TimeUnit.SECONDS)).isTrue();
    }
}
