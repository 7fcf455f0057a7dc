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
}
