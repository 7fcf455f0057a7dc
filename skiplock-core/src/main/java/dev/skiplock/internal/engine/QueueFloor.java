package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.Claimed;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@link ClaimFloor} of one queue's claimer: none until its first claim; then the last job
 * claimed of the floor's priority, which stays while claims take jobs of it (a claim walks the
 * other priorities from their start, so a floor that followed every job of a mixed queue would
 * walk its busiest priority); a claim that took none of it moves the floor to its last job of the
 * highest priority it took. Lowered by the look-behind when a claimable job lies behind it. Claims
 * run on the claimer's thread or, one round at a time with it, on the notifier's; the look-behind
 * on its own.
 */
final class QueueFloor {
    private final AtomicReference<ClaimFloor> floor = new AtomicReference<>();

    /** Where the next claim starts; null: from the start of the queue. */
    ClaimFloor current() {
        return floor.get();
    }

    /**
     * After a claim that started from {@code used}: the floor moves as the class says, unless the
     * look-behind lowered it meanwhile (the lowered floor stays for the next claim).
     */
    void claimed(ClaimFloor used, List<Claimed> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        boolean tookTheFloorsPriority = used != null
                && jobs.stream().anyMatch(job -> job.job().priority() == used.priority());
        int priority = tookTheFloorsPriority ? used.priority()
                : jobs.stream().mapToInt(job -> job.job().priority()).max().orElseThrow();
        Job latest = null; // of the jobs of that priority; a floor is made for it alone (issue #12: one per job was)
        for (Claimed claimed : jobs) {
            Job job = claimed.job();
            if (job.priority() == priority) {
                latest = latest == null ? job : ClaimFloor.later(latest, job);
            }
        }
        ClaimFloor position = ClaimFloor.of(latest); // some job has that priority: the floor's, or the highest
        floor.compareAndSet(used, tookTheFloorsPriority ? used.later(position) : position);
    }

    /**
     * Lowers the floor to the first claimable job of its priority if that job lies where a claim
     * from the floor does not look ({@code firstClaimable} reads it for a priority); true if it did.
     */
    boolean lookBehind(FirstClaimable firstClaimable) {
        ClaimFloor seen = floor.get();
        if (seen == null) {
            return false;
        }
        Optional<ClaimFloor> first = firstClaimable.of(seen.priority());
        if (first.isEmpty()) {
            return false;
        }
        // Whatever the claimer set meanwhile: a floor of that priority past the job comes back to it.
        ClaimFloor lowered = first.get();
        ClaimFloor after = floor.updateAndGet(current -> current != null && current.priority() == lowered.priority()
                && current.strands(lowered) ? lowered : current);
        return after == lowered;
    }

    /** The first claimable job of a priority, in claim order, if there is one. */
    @FunctionalInterface
    interface FirstClaimable {
        Optional<ClaimFloor> of(int priority);
    }
}
