package dev.skiplock;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the first-use costs of the enqueue path before {@link Skiplock.Builder#build()} returns, so
 * that an application's first enqueue does not pay them (issue #12: a producer's first
 * {@code enqueueMany} of 1,000 jobs took 420-450 ms in a fresh JVM, against about 25 ms for the
 * same call on a second instance in the same JVM: loading and linking some 800 classes, about 150 ms
 * of them the JSON mapper's; the database's part was a few milliseconds). A lone job and a batch
 * of {@value #BATCH} go through the path an enqueue takes (args made JSON, the job built, the lone
 * job's statement, the batch's COPY where the driver has one) in a transaction rolled back at once
 * ({@link dev.skiplock.internal.store.JobStore#rehearseEnqueue}): no row stays, nothing is
 * announced, no metric counts it. A batch rather than one job: what runs once per job (making
 * args JSON, encoding a row) is then compiled by the JIT's first tier (200 calls). What an
 * application's own args type costs the first time (Jackson's serializer for it) stays with its
 * first enqueue. What it warms is this JVM's, so it runs once per JVM and driver (a later
 * instance's rehearsal cost its build 40-50 ms on PostgreSQL and saved nothing measurable). Failing
 * here never fails the build; it is logged as a warning, once: a later build of the same driver
 * does not try again (a role that may not insert, a client's only, would fail at every build).
 */
final class EnqueueWarmup {
    private static final Logger LOG = LoggerFactory.getLogger(EnqueueWarmup.class);
    /** The rehearsal's queue and kind, as the worker's warm-up names its own. */
    static final String REHEARSAL = "skiplock.warmup";
    /** How many jobs the rehearsal's batch holds: past the JIT's first-tier threshold. */
    static final int BATCH = 500;

    /** The rehearsal's args: a record, as an application's args usually are. */
    record RehearsalArgs(int i, String note) {
    }

    /** The drivers whose enqueue path this JVM has rehearsed, or tried to. */
    private static final Set<String> WARM = ConcurrentHashMap.newKeySet();

    private EnqueueWarmup() {
    }

    /** Rehearses unless this JVM already did, or tried, for {@code driver}. */
    static void run(TenantJobClient client, String driver) {
        if (!WARM.add(driver)) {
            return;
        }
        long started = System.nanoTime();
        try {
            List<JobRequest> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                batch.add(request(i));
            }
            client.rehearseEnqueue(request(-1), batch);
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("enqueue warm-up failed, and is not tried again for {} in this JVM; the first enqueue pays"
                    + " for the first use: {}", driver, e.toString());
        }
        LOG.debug("enqueue warm-up took {} ms", (System.nanoTime() - started) / 1_000_000);
    }

    private static JobRequest request(int i) {
        return JobRequest.of(REHEARSAL, new RehearsalArgs(i, "rehearsal")).withQueue(REHEARSAL);
    }
}
