package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A queue's slots and holds: what a claim may take, and when a release wakes the claimer. */
class SlotsTest {
    private static final int CONCURRENCY = 4;
    private static final int CLAIM_BATCH = 3;
    private static final int HOLDS = CONCURRENCY + Completer.MAX_BATCH;

    private final Doorbell doorbell = new Doorbell();
    private final Slots slots = new Slots(CONCURRENCY, CLAIM_BATCH, doorbell);

    private boolean rang() throws InterruptedException {
        return doorbell.await(0);
    }

    /** Claims as the claimer does, each job's handler finishing at once: slots back, holds kept. */
    private int claimAndFinish(int most) {
        int taken = slots.take(most);
        slots.backlog(taken == most);
        for (int i = 0; i < taken; i++) {
            slots.release();
        }
        return taken;
    }

    @Test
    void aClaimTakesNoMoreThanTheFreeSlotsAndGivesBackWhatItDidNotUse() {
        assertThat(slots.take(10)).isEqualTo(CONCURRENCY);
        assertThat(slots.take(10)).isZero();
        slots.giveBack(CONCURRENCY);
        assertThat(slots.take(2)).isEqualTo(2);
    }

    @Test
    void aRoundTakesTheSlotsFreedSinceItBeganWithoutMarkingABacklog() throws InterruptedException {
        assertThat(slots.take(CONCURRENCY)).isEqualTo(CONCURRENCY);
        slots.backlog(false);
        slots.giveBack(1); // as a handler finishing while the round waits for the write lock
        assertThat(slots.takeMore(CONCURRENCY)).isEqualTo(1);
        assertThat(slots.takeMore(CONCURRENCY)).isZero();
        assertThat(slots.takeMore(0)).isZero();
        slots.release();
        assertThat(rang()).as("finding no more slots is not a backlog; the round's end says").isFalse();
    }

    @Test
    void finishedJobsWhoseOutcomesAreNotWrittenStopTheClaimsAtTheBound() throws InterruptedException {
        int held = 0;
        while (held < HOLDS) {
            held += claimAndFinish(CLAIM_BATCH);
        }
        assertThat(held).isEqualTo(HOLDS);
        assertThat(slots.take(CLAIM_BATCH)).isZero(); // every slot is free, every hold taken
        rang(); // forget the rings of the finished handlers

        slots.releaseHold();
        slots.releaseHold();
        assertThat(rang()).isFalse(); // two free holds are less than a claim's worth
        slots.releaseHold();
        assertThat(rang()).isTrue();
        assertThat(slots.take(10)).isEqualTo(CLAIM_BATCH);
    }

    @Test
    void aReleaseRingsOnlyAfterAClaimThatCouldNotTakeAllItWanted() throws InterruptedException {
        assertThat(claimAndFinish(CLAIM_BATCH + 1)).isEqualTo(CLAIM_BATCH + 1); // asked 4, got 4: backlog
        rang();
        slots.take(1);
        slots.release();
        assertThat(rang()).isTrue();

        slots.backlog(false); // the last claim found fewer jobs than it had slots: none wait
        slots.take(1);
        slots.release();
        slots.releaseHold();
        assertThat(rang()).isFalse();
    }
}
