package dev.skiplock;

/**
 * Counters of one {@link Skiplock} instance since it started.
 *
 * @param claimed            attempts claimed by this instance's claimers
 * @param succeeded          attempts finalized as succeeded (likewise failed, cancelled, timedOut)
 * @param retried            attempts that ended in a retry or snooze (job back to queued)
 * @param staleCompletions   outcomes rejected because another worker owned the job by then (fencing)
 * @param leasesLost         running executions stopped because a heartbeat found their lease gone
 * @param adopted            orphaned jobs (lease cleared by a reaper) this instance adopted
 * @param resumed            adopted jobs whose execution outlived its worker and was resumed, not rerun
 * @param released           jobs given back at shutdown
 * @param leasesReaped       expired leases this instance's reaper cleared
 * @param claimStatements    claim statements that returned at least one job (claimed / this = mean batch)
 * @param completionBatches  fenced completion statements written (outcomes / this = mean batch)
 */
public record SkiplockMetrics(
        long claimed,
        long succeeded,
        long failed,
        long retried,
        long cancelled,
        long timedOut,
        long staleCompletions,
        long leasesLost,
        long adopted,
        long resumed,
        long released,
        long leasesReaped,
        long claimStatements,
        long completionBatches,
        long enqueuedToUnservedQueues) {
}
