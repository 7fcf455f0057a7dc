package dev.skiplock.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each queue's oldest due job is read by a walk of every queued job, unless queues hold more than
 * {@link OldestQueuedRead#PROBED_ABOVE} on average and all of them are the tenant's: then by probes of each
 * queue's priorities (MetricsContract holds both statements to the same answer on both databases).
 */
class OldestQueuedReadTest {
    private static final String WALK = OldestQueuedRead.WALK;
    private static final String PROBES = OldestQueuedRead.PROBES;

    @Test
    void aTenantWithNoQueuedJobReadsNoStatementNorEveryTenantsCounts() {
        List<QueueCount> finishedOnly = List.of(new QueueCount("default", JobStatus.SUCCEEDED, 10_000_000),
                new QueueCount("default", JobStatus.RUNNING, 40), queued("mail", 0));
        assertThat(OldestQueuedRead.statement(List.of(), () -> {
            throw new AssertionError("every tenant's counts read");
        })).isEmpty();
        assertThat(OldestQueuedRead.statement(finishedOnly, () -> {
            throw new AssertionError("every tenant's counts read");
        })).isEmpty();
    }

    @Test
    void fewQueuedJobsAQueueAreWalked() {
        assertThat(OldestQueuedRead.statement(List.of(queued("default", 1)), () -> List.of())).contains(WALK);
        List<QueueCount> thousand = List.of(queued("default", 1_000));
        assertThat(OldestQueuedRead.statement(thousand, () -> thousand)).contains(WALK);
        List<QueueCount> manySmallQueues = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            manySmallQueues.add(queued("q" + i, 9));
        }
        manySmallQueues.add(new QueueCount("q0", JobStatus.SUCCEEDED, 10_000_000));
        assertThat(OldestQueuedRead.statement(manySmallQueues, () -> manySmallQueues)).contains(WALK);
    }

    @Test
    void manyQueuedJobsAQueueAreFoundByProbesWhenAllAreTheTenants() {
        List<QueueCount> one = List.of(queued("default", 1_001));
        assertThat(OldestQueuedRead.statement(one, () -> one)).contains(PROBES);
        List<QueueCount> two = List.of(queued("default", 500_000), queued("mail", 3), queued("idle", 0));
        assertThat(OldestQueuedRead.statement(two, () -> two)).as("two queues with queued jobs").contains(PROBES);
    }

    @Test
    void aTenantWithFewJobsAQueueIsWalkedWithoutReadingEveryTenantsCounts() {
        assertThat(OldestQueuedRead.statement(List.of(queued("default", 10)), () -> {
            throw new AssertionError("every tenant's counts read");
        })).contains(WALK);
    }

    @Test
    void aTenantBesideOthersQueuedJobsIsWalked() {
        List<QueueCount> everyTenants = List.of(queued("default", 300_001));
        assertThat(OldestQueuedRead.statement(List.of(queued("default", 1)), () -> everyTenants)).contains(WALK);
        assertThat(OldestQueuedRead.statement(List.of(queued("default", 300_000)), () -> everyTenants)).contains(WALK);
        assertThat(OldestQueuedRead.statement(everyTenants, () -> everyTenants)).contains(PROBES);
    }

    private static QueueCount queued(String queue, long jobs) {
        return new QueueCount(queue, JobStatus.QUEUED, jobs);
    }
}
