package dev.skiplock.internal.store;

import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Which statement reads each queue's oldest due job ({@code GET /api/v1/queues}, the dashboard's
 * overview, {@code skiplock top}), by the queued jobs of the counts table. oldest_queued walks every
 * queued job of the claimable index, about 0.4 µs each. oldest_queued_by_priority probes each queue
 * and each of its priorities, 10-20 µs a probe whatever their jobs, and in each priority reads the
 * rows of other tenants' due jobs until it meets one of the tenant's, slower a job than the walk
 * (300,000 of another tenant ahead of the tenant's one: 60-350 ms, against 28-39 ms). So the probes
 * are read only when queues hold more than {@link #PROBED_ABOVE} queued jobs on average and every
 * queued job is the tenant's (a deployment of one tenant, or an administrator's view). The
 * threshold assumes a few priorities per queue: a queue of 1,000 jobs over more than a dozen
 * priorities costs the probes more than the walk (at the 2,001 priorities a job may take, about 60
 * ms a queue against 0.4 ms). A tenant with no queued job reads neither: the walk would still read
 * every other tenant's queued jobs to find none of its own (200,000 of them: 29-31 ms, every 2 s on
 * the dashboard). The counts are exact for every job Skiplock's statements write (a job inserted
 * by other SQL is neither counted nor, now, its oldest time shown).
 */
final class OldestQueuedRead {
    static final String WALK = "oldest_queued";
    static final String PROBES = "oldest_queued_by_priority";
    static final long PROBED_ABOVE = 1_000;

    private OldestQueuedRead() {
    }

    /**
     * The statement for the tenant whose counts are {@code tenantCounts}, none if it has no queued
     * job; {@code everyTenantsCounts} is read only when the tenant's queues hold enough jobs for the
     * probes.
     */
    static Optional<String> statement(List<QueueCount> tenantCounts, Supplier<List<QueueCount>> everyTenantsCounts) {
        Map<String, Long> tenants = queuedPerQueue(tenantCounts);
        long queued = total(tenants);
        if (queued == 0) {
            return Optional.empty();
        }
        if (queued <= PROBED_ABOVE * tenants.size()) {
            return Optional.of(WALK);
        }
        return Optional.of(total(queuedPerQueue(everyTenantsCounts.get())) == queued ? PROBES : WALK);
    }

    private static Map<String, Long> queuedPerQueue(List<QueueCount> counts) {
        Map<String, Long> queued = new HashMap<>();
        for (QueueCount count : counts) {
            if (count.status() == JobStatus.QUEUED && count.jobs() > 0) {
                queued.merge(count.queue(), count.jobs(), Long::sum);
            }
        }
        return queued;
    }

    private static long total(Map<String, Long> queued) {
        return queued.values().stream().mapToLong(Long::longValue).sum();
    }
}
