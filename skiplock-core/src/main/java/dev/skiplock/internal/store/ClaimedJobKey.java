package dev.skiplock.internal.store;

import dev.skiplock.Job;
import java.util.UUID;

/**
 * What a claim's bookkeeping reads of a job it claimed: what {@code claim_jobs} returns where the
 * store reads the claimed jobs' rows after the commit
 * ({@link dev.skiplock.spi.Dialect#readsClaimedJobsAfterCommit}).
 */
record ClaimedJobKey(UUID id, String tenant, String queue) {
    static ClaimedJobKey of(Job job) {
        return new ClaimedJobKey(job.id(), job.tenant(), job.queue());
    }
}
