package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.JobStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Issue #12, held snapshots: a claimer starts each claim from its floor, the last job it claimed
 * (ClaimFloor; PostgreSQL, whose index keeps claimed jobs until vacuum), yet claims in claim order
 * and leaves no job behind: DESIGN §1, ordering when claiming.
 */
abstract class ClaimFloorContract extends ContractBase {
    /** Priority, highest first, then available_at, then id as the databases order ids. */
    private static final Comparator<Job> CLAIM_ORDER = Comparator.comparingInt(Job::priority).reversed()
            .thenComparing(Job::availableAt).thenComparing(Job::id, ClaimFloorContract::compareIds);

    record Work(String label) {
    }

    /**
     * A job enqueued behind the claimer's floor (here backdated an hour; in production an enqueue
     * whose transaction committed long after it began) rings the claimer, whose claim from the floor
     * finds nothing: its look-behind finds the job. The poll interval is ten minutes, so only that
     * can run it in time.
     */
    @Test
    void aJobEnqueuedBehindTheFloorIsClaimedWithoutWaitingForThePoll() {
        List<String> ran = new CopyOnWriteArrayList<>();
        Skiplock worker = started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> {
                    ran.add(context.args().label());
                    return JobOutcome.complete();
                }));
        awaitStatus(worker, worker.enqueue(JobRequest.of("work", new Work("first"))).id(), JobStatus.SUCCEEDED);

        Job behind = worker.enqueue(JobRequest.of("work", new Work("behind"))
                .withRunAt(Instant.now().minus(Duration.ofHours(1))));

        awaitStatus(worker, behind.id(), JobStatus.SUCCEEDED);
        assertThat(ran).containsExactly("first", "behind");
    }

    /**
     * From a floor at priority 0, the claim still takes a higher priority first and a lower one
     * last, even backdated behind the floor, and jobs of the floor's priority in between.
     */
    @Test
    void everyPriorityIsClaimedInClaimOrderFromTheFloor() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> {
                    ran.add(context.args().label());
                    if (context.args().label().equals("first")) {
                        release.await();
                    }
                    return JobOutcome.complete();
                }));
        worker.enqueue(JobRequest.of("work", new Work("first")));
        await().atMost(WAIT).until(() -> ran.contains("first"));

        Instant hourAgo = Instant.now().minus(Duration.ofHours(1));
        List<Job> later = worker.enqueueMany(List.of(
                JobRequest.of("work", new Work("lower")).withPriority(-5).withRunAt(hourAgo),
                JobRequest.of("work", new Work("same")),
                JobRequest.of("work", new Work("higher")).withPriority(5).withRunAt(hourAgo)));
        release.countDown();

        later.forEach(job -> awaitStatus(worker, job.id(), JobStatus.SUCCEEDED));
        assertThat(ran).containsExactly("first", "higher", "same", "lower");
    }

    /**
     * A claimer runs a look-behind only where its claim starts from the floor
     * ({@code JobStore.claimsFromFloor}, read from the claim statement's parameters): there a claim
     * from a floor past a job leaves the job to the look-behind. SQLite's claim ignores the floor
     * and takes the job anyway, so a look-behind there would only read and wake for nothing.
     */
    @Test
    void aClaimerLooksBehindOnlyWhereItsClaimStartsFromTheFloor() {
        Skiplock producer = client();
        Job job = producer.enqueue(JobRequest.of("work", new Work("behind")));
        JobStore store = FastPathContract.store(producer);
        ClaimFloor pastTheJob = new ClaimFloor(job.priority(), job.availableAt().plus(Duration.ofHours(1)), job.id());

        List<Claimed> claimed = store.claimJobs(
                new ClaimParams("default", "worker-1", "host-1", UUID.randomUUID(), 60_000, "[]"), pastTheJob, 10);

        assertThat(store.claimsFromFloor()).isEqualTo(claimed.isEmpty());
    }

    /**
     * A batch enqueued in one transaction shares its available_at: the floor orders its jobs by id,
     * and a claim of one job at a time takes all of them, in order.
     */
    @Test
    void aBatchSharingOneTimeIsClaimedWholeOneJobAtATime() {
        List<String> ran = new CopyOnWriteArrayList<>();
        Skiplock worker = started(builder(config -> config.queue("default", 1).claimBatchSize(1))
                .handler("work", Work.class, context -> {
                    ran.add(context.args().label());
                    return JobOutcome.complete();
                }));
        List<JobRequest> requests = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requests.add(JobRequest.of("work", new Work("job-" + i)));
        }
        List<Job> batch = worker.enqueueMany(requests);

        batch.forEach(job -> awaitStatus(worker, job.id(), JobStatus.SUCCEEDED));
        assertThat(ran).containsExactlyElementsOf(requests.stream().map(r -> ((Work) r.args()).label()).toList());
    }

    /**
     * Jobs delayed past now at every priority lie in the claim index between the due jobs of their
     * priority and the next priority's: claims of five from the start of the queue (a claimer's
     * first) take every due job, five by five in claim order, and none of the delayed ones
     * (migration 0019: a claim reads the queue one priority at a time, and in each only its due
     * jobs). The order within one claim is not asserted: SQLite returns its rows in its own order.
     */
    @Test
    void claimsFromTheStartPassOverDelayedJobsOfEveryPriority() {
        Skiplock producer = client();
        List<UUID> due = inClaimOrder(enqueueDueAndDelayedAtEveryPriority(producer));
        JobStore store = FastPathContract.store(producer);

        for (int from = 0; from < due.size(); from += 5) {
            List<UUID> claimed = store.claimJobs(claimParams(), null, 5).stream().map(job -> job.job().id()).toList();
            assertThat(claimed).as("claim of jobs %s to %s in claim order", from, from + 4)
                    .containsExactlyInAnyOrderElementsOf(due.subList(from, Math.min(due.size(), from + 5)));
        }
        assertThat(store.claimJobs(claimParams(), null, 5)).as("a claim once the due jobs are taken").isEmpty();
    }

    /**
     * From a floor at priority 0 (PostgreSQL's claim reads the other priorities apart from it), a
     * claim takes the due jobs of the higher and lower priorities around the floor's and of the
     * floor's own, and passes over the delayed jobs of each.
     */
    @Test
    void aClaimFromAFloorPassesOverDelayedJobsOfTheOtherPriorities() {
        Skiplock producer = client();
        List<Job> due = enqueueDueAndDelayedAtEveryPriority(producer);
        Job firstOfTheFloorsPriority = due.stream().filter(job -> job.priority() == 0).min(CLAIM_ORDER).orElseThrow();
        JobStore store = FastPathContract.store(producer);

        List<UUID> claimed = store.claimJobs(claimParams(), ClaimFloor.of(firstOfTheFloorsPriority), 100).stream()
                .map(job -> job.job().id()).toList();

        assertThat(claimed).containsExactlyInAnyOrderElementsOf(inClaimOrder(due));
    }

    /**
     * At priorities 10, 3, 0 and -5, three jobs due (one to three minutes ago, enqueued newest
     * first, so that id order is not claim order) and three delayed by one to three days, mixed;
     * returns the due ones.
     */
    private static List<Job> enqueueDueAndDelayedAtEveryPriority(Skiplock producer) {
        Instant now = Instant.now();
        List<JobRequest> requests = new ArrayList<>();
        for (int priority : new int[] {-5, 10, 0, 3}) {
            for (int step = 1; step <= 3; step++) {
                requests.add(JobRequest.of("work", new Work("delayed")).withPriority(priority)
                        .withRunAt(now.plus(Duration.ofDays(step))));
                requests.add(JobRequest.of("work", new Work("due")).withPriority(priority)
                        .withRunAt(now.minus(Duration.ofMinutes(step))));
            }
        }
        return producer.enqueueMany(requests).stream().filter(job -> job.availableAt().isBefore(now)).toList();
    }

    /** Ids in claim order. */
    private static List<UUID> inClaimOrder(List<Job> jobs) {
        return jobs.stream().sorted(CLAIM_ORDER).map(Job::id).toList();
    }

    private static int compareIds(UUID a, UUID b) {
        int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    private static ClaimParams claimParams() {
        return new ClaimParams("default", "worker-1", "host-1", UUID.randomUUID(), 60_000, "[]");
    }
}
