package dev.skiplock.internal.store;

import dev.skiplock.Job;
import dev.skiplock.spi.Driver;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Slot markers of periodic schedules ({@code cron.sql}): a slot is enqueued at most once, ever, by
 * recording it in the transaction that enqueues its job. Thread-safe.
 */
public final class CronStore {
    /** The statements every driver's {@code cron.sql} must define (checked by a test per driver). */
    public static final List<String> STATEMENTS = List.of("bound_cron_slot_wait", "claim_cron_slot", "prune_cron_slots");

    private final SqlRunner sql;
    private final JobStore jobs;

    public CronStore(DataSource dataSource, Driver driver, JobStore jobs) {
        this.sql = SqlRunner.forTable(dataSource, driver, "cron");
        this.jobs = jobs;
    }

    /**
     * In one transaction: takes the slot ({@code claim_cron_slot}, waiting for another scheduler's
     * claim of it a bounded time: {@code bound_cron_slot_wait}), then inserts the job on the same
     * connection. Empty, with nothing written, when the slot was already taken.
     */
    public Optional<Job> claimCronSlot(String schedule, long slotMillis, Job job) {
        return sql.inTransaction(connection -> {
            sql.query(connection, "bound_cron_slot_wait", Params.of(), row -> 1);
            boolean claimed = !sql.query(connection, "claim_cron_slot", Params.of("tenant", job.tenant(),
                    "schedule", schedule, "slot", slotMillis, "job_id", job.id()), row -> 1).isEmpty();
            return claimed ? Optional.of(jobs.insertJobs(connection, List.of(job)).getFirst()) : Optional.empty();
        });
    }

    /**
     * Deletes up to {@code limit} markers recorded more than {@link KeptAtLeastADay#under(Duration)
     * KeptAtLeastADay.under(retention)} ago; returns how many. Markers are kept at least a day, whatever
     * the retention: a scheduler whose clock is behind by less than that (minus the minute a late
     * slot may still fire) finds the marker and skips.
     */
    public int pruneCronSlots(Duration retention, int limit) {
        return sql.update("prune_cron_slots", Params.of("age_ms", KeptAtLeastADay.under(retention).toMillis(), "limit", limit));
    }
}
