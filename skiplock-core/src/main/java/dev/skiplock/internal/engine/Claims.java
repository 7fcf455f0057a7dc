package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.JobStore;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntSupplier;

/**
 * The claim stage's statements: claim queued jobs and adopt orphans for this worker, each under a
 * fresh token. Kept apart from {@link QueueClaimer}, which decides when to claim and how many.
 */
final class Claims {
    private final SkiplockConfig config;
    private final JobStore store;
    private final Counters counters;
    private final LostClaims lostClaims;
    /** Kinds whose executions outlive their worker (JSON array): adopted only on their own host while it lives. */
    private final String resumableKindsJson;

    Claims(SkiplockConfig config, JobStore store, Counters counters, LostClaims lostClaims, String resumableKindsJson) {
        this.config = config;
        this.store = store;
        this.counters = counters;
        this.lostClaims = lostClaims;
        this.resumableKindsJson = resumableKindsJson;
    }

    /**
     * Claims with a fresh token. If the answer is lost (the connection dropped after the claim
     * committed), the jobs are leased to this worker, which does not run them: they are given back
     * at once without using their attempt, or by the next heartbeat if the database is unreachable.
     * The claim starts from {@code floor} (null: from the start of the queue). {@code limit} is asked
     * once, when the statement is about to run ({@link JobStore#claimJobs(ClaimParams, ClaimFloor, IntSupplier)}).
     */
    List<Claimed> claim(String queue, ClaimFloor floor, IntSupplier limit) {
        ClaimParams claim = claimParams(queue);
        List<Claimed> jobs;
        try {
            jobs = store.claimJobs(claim, floor, limit);
        } catch (RuntimeException | Error e) {
            // SQLite's claim has committed before its jobs' rows are read: whatever fails, they go back
            try {
                lostClaims.giveBack(claim);
            } catch (RuntimeException | Error giveBackFailed) {
                e.addSuppressed(giveBackFailed);
            }
            throw e;
        }
        counters.claimed(queue, jobs);
        return jobs;
    }

    /** Whether a claim starts from the claimer's floor, so that a look-behind has work ({@link JobStore#claimsFromFloor}). */
    boolean fromFloor() {
        return store.claimsFromFloor();
    }

    /** Whether a claim would find a connection idle in the pool now ({@link JobStore#hasIdleConnection}). */
    boolean hasIdleConnection() {
        return store.hasIdleConnection();
    }

    /** The first claimable job of {@code priority} in {@code queue}, in claim order (a claimer's look-behind). */
    Optional<ClaimFloor> firstClaimable(String queue, int priority) {
        return store.firstClaimable(queue, priority);
    }

    /** Orphans of {@code queue} (lease cleared by a reaper), taken under a fresh token (DESIGN §2, adoption). */
    List<Claimed> adopt(String queue, int limit) {
        return store.adoptOrphans(claimParams(queue), config.leaseTtl().toMillis(), limit);
    }

    /** Takes {@code jobs} (of one queue) through claim and completion, rolled back ({@link Warmup}). */
    List<Claimed> rehearse(List<Job> jobs) {
        return store.rehearse(jobs, claimParams(jobs.get(0).queue()));
    }

    /** As {@link #rehearse}, on each connection the pool holds idle, each with jobs of its own; returns how many rehearsed. */
    int rehearseOnEachConnection(java.util.function.Supplier<List<Job>> jobs) {
        return store.rehearseOnEachConnection(jobs, claimParams(Warmup.REHEARSAL)).size();
    }

    private ClaimParams claimParams(String queue) {
        return new ClaimParams(queue, config.workerId(), config.hostId(), UUID.randomUUID(), config.leaseTtl().toMillis(),
                resumableKindsJson);
    }
}
