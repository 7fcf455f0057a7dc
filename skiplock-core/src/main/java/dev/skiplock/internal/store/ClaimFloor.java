package dev.skiplock.internal.store;

import dev.skiplock.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Where a claimer's next claim starts in claim order ({@code priority DESC, available_at, id}): a
 * job it claimed last (which one: {@code QueueFloor}). The claim takes jobs of another priority from
 * the start of their part of the queue, and jobs of this priority from {@link #recentFrom()} to
 * {@code availableAt} and from this job on (see {@code claim_jobs}). It spares each claim the jobs
 * claimed before it, whose index entries a held snapshot keeps from vacuum (issue #12).
 *
 * @param priority    the job's priority
 * @param availableAt the job's {@code available_at}, by the database clock
 * @param id          the job's id (jobs enqueued in one transaction share their {@code available_at})
 */
public record ClaimFloor(int priority, Instant availableAt, UUID id) {
    /**
     * How far behind its floor a claim looks: an enqueue whose transaction commits within this time
     * of its start (its {@code available_at} is its start) is claimed by the next claim; one that
     * commits later is found by the look-behind ({@code first_claimable}). The claim walks the jobs
     * claimed within this time, which a held snapshot keeps.
     */
    public static final Duration LAG = Duration.ofMillis(100);

    /** The position of {@code job} in claim order. */
    public static ClaimFloor of(Job job) {
        return new ClaimFloor(job.priority(), job.availableAt(), job.id());
    }

    /** Whichever of the two comes later in claim order: a lower priority, a later time, a greater id. */
    public ClaimFloor later(ClaimFloor other) {
        return order(priority, availableAt, id, other.priority, other.availableAt, other.id) < 0 ? other : this;
    }

    /** Whichever of two jobs comes later in claim order, as {@link #later}; no floor is made for either. */
    public static Job later(Job job, Job other) {
        return order(job.priority(), job.availableAt(), job.id(), other.priority(), other.availableAt(), other.id()) < 0
                ? other : job;
    }

    /** Negative if the first position comes before the second in claim order, positive if after, 0 if the same. */
    private static int order(int priority, Instant availableAt, UUID id, int otherPriority, Instant otherAvailableAt,
            UUID otherId) {
        if (priority != otherPriority) {
            return priority > otherPriority ? -1 : 1;
        }
        int byTime = availableAt.compareTo(otherAvailableAt);
        return byTime != 0 ? byTime : compareIds(id, otherId);
    }

    /** The earliest {@code available_at} of this priority the claim looks at. */
    public Instant recentFrom() {
        return availableAt.minus(LAG);
    }

    /** True if {@code first}, a claimable job of this priority, lies where a claim from this floor does not look. */
    public boolean strands(ClaimFloor first) {
        return first.availableAt.isBefore(recentFrom())
                || first.availableAt.equals(availableAt) && compareIds(first.id, id) < 0;
    }

    /** Ids in the databases' order: PostgreSQL compares a uuid's bytes unsigned, and so does SQLite its text. */
    private static int compareIds(UUID a, UUID b) {
        int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }
}
