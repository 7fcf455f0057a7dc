package dev.skiplock.internal.store;

import dev.skiplock.Job;
import dev.skiplock.spi.Driver;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slot markers of periodic schedules ({@code cron.sql}): a slot is enqueued at most once, ever, by
 * recording it in the transaction that enqueues its job. Thread-safe.
 */
public final class CronStore {
    private static final Logger LOG = LoggerFactory.getLogger(CronStore.class);
    /** The statements every driver's {@code cron.sql} must define (checked by a test per driver). */
    public static final List<String> STATEMENTS = List.of("bound_cron_slot_wait", "claim_cron_slot", "cron_slot_pruned",
            "prune_cron_slots", "record_pruned_cron_slot");

    private static final Comparator<List<String>> TENANT_THEN_SCHEDULE = Comparator
            .<List<String>, String>comparing(key -> key.get(0)).thenComparing(key -> key.get(1));

    private final SqlRunner sql;
    private final JobStore jobs;

    public CronStore(DataSource dataSource, Driver driver, JobStore jobs) {
        this.sql = SqlRunner.forTable(dataSource, driver, "cron");
        this.jobs = jobs;
    }

    /**
     * In one transaction: takes the slot ({@code claim_cron_slot}, waiting for another scheduler's
     * claim of it a bounded time: {@code bound_cron_slot_wait}), then inserts the job on the same
     * connection. Empty, with nothing written, when the slot was already taken, or when retention
     * pruned the marker of this slot or of a later one of the schedule ({@code cron_slot_pruned}).
     */
    public Optional<Job> claimCronSlot(String schedule, long slotMillis, Job job) {
        try {
            // READ COMMITTED: cron_slot_pruned must see a prune that claim_cron_slot waited for
            return sql.inReadCommittedTransaction(connection -> {
                sql.query(connection, "bound_cron_slot_wait", Params.of(), row -> 1);
                if (sql.query(connection, "claim_cron_slot", Params.of("tenant", job.tenant(), "schedule", schedule,
                        "slot", slotMillis, "job_id", job.id()), row -> 1).isEmpty()) {
                    return Optional.<Job>empty();
                }
                if (!sql.query(connection, "cron_slot_pruned", Params.of("tenant", job.tenant(), "schedule", schedule,
                        "slot", slotMillis), row -> 1).isEmpty()) {
                    throw new SlotPruned(); // rolls the claim back
                }
                return Optional.of(jobs.insertJobs(connection, List.of(job)).getFirst());
            });
        } catch (SlotPruned pruned) {
            for (Throwable rollback : pruned.getSuppressed()) {
                LOG.warn("the claim of a pruned cron slot was not rolled back cleanly: {}", rollback.toString());
            }
            return Optional.empty();
        }
    }

    /**
     * Deletes up to {@code limit} markers recorded more than {@link KeptAtLeastADay#under(Duration)
     * KeptAtLeastADay.under(retention)} ago, and records each schedule's latest pruned slot in the
     * same transaction; returns how many. Markers are kept at least a day, whatever the retention: a
     * scheduler whose clock is behind by less than that (minus the minute a late slot may still
     * fire) finds the marker and skips; one further behind finds the slot pruned and skips too.
     */
    public int pruneCronSlots(Duration retention, int limit) {
        return sql.inTransaction(connection -> {
            List<PrunedSlot> pruned = sql.query(connection, "prune_cron_slots",
                    Params.of("age_ms", KeptAtLeastADay.under(retention).toMillis(), "limit", limit),
                    row -> new PrunedSlot(row.getString("tenant"), row.getString("schedule"), row.getLong("slot")));
            // each schedule's latest, in (tenant, schedule) order: two prunes lock these rows in one order
            pruned.stream().collect(Collectors.toMap(slot -> List.of(slot.tenant(), slot.schedule()), PrunedSlot::slot,
                    Math::max, () -> new TreeMap<>(TENANT_THEN_SCHEDULE)))
                    .forEach((schedule, slot) -> sql.update(connection, "record_pruned_cron_slot",
                            Params.of("tenant", schedule.get(0), "schedule", schedule.get(1), "slot", slot)));
            return pruned.size();
        });
    }

    private record PrunedSlot(String tenant, String schedule, long slot) {
    }

    /**
     * A claim of a slot whose marker was pruned: ends the claim's transaction with a rollback (a
     * failure of the rollback is added to it, and logged, see {@link #claimCronSlot}).
     */
    private static final class SlotPruned extends RuntimeException {
        SlotPruned() {
            super(null, null, true, false);
        }
    }
}
