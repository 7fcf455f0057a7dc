package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** DESIGN §5 dependencies: wait for every dependency to succeed; fail when one does not. */
abstract class DependenciesContract extends ContractBase {

    record Step(String name, boolean fail) {
    }

    private Skiplock worker(CountDownLatch release) {
        return started(builder(config -> config.queue("default", 4))
                .handler("step", Step.class, context -> {
                    if (context.args().name().startsWith("gate")) {
                        release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    }
                    if (context.args().name().equals("gate in its transaction")) {
                        context.inTransaction(connection -> {
                            context.completeInTransaction(connection, null);
                            return null;
                        });
                    }
                    return context.args().fail() ? JobOutcome.fail("step failed") : JobOutcome.complete();
                }));
    }

    @Test
    void jobWaitsUntilEveryDependencySucceeded() {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = worker(release);
        Job gate = worker.enqueue(JobRequest.of("step", new Step("gate", false)));
        Job quick = worker.enqueue(JobRequest.of("step", new Step("quick", false)));
        Job after = worker.enqueue(JobRequest.of("step", new Step("after", false))
                .withDependsOn(List.of(gate.id(), quick.id())));

        assertThat(after.status()).isEqualTo(JobStatus.WAITING);
        assertThat(after.dependsOn()).containsExactly(gate.id(), quick.id());
        awaitStatus(worker, quick.id(), JobStatus.SUCCEEDED);
        assertThat(worker.get(after.id()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);

        release.countDown();
        awaitStatus(worker, after.id(), JobStatus.SUCCEEDED);
        assertThat(worker.events(after.id(), 0, 100).stream().filter(event -> event.type().equals("status"))
                .map(JobEvent::status)).containsExactly("waiting", "queued", "running", "succeeded");
    }

    /**
     * A dependent released once its dependencies succeed keeps a runAt still to come, however the
     * dependency completes (with the worker's batch, or in the handler's transaction): as it does
     * when they had succeeded before its enqueue. Before, the release made it due at once.
     */
    @Test
    void aDependentKeepsARunAtStillToComeWhenItsDependenciesSucceed() {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = worker(release);
        java.time.Instant runAt = java.time.Instant.now().plus(java.time.Duration.ofHours(1))
                .truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        List<Job> later = new java.util.ArrayList<>();
        for (String gate : List.of("gate", "gate in its transaction")) {
            Job dependency = worker.enqueue(JobRequest.of("step", new Step(gate, false)));
            later.add(worker.enqueue(JobRequest.of("step", new Step("later", false)).withRunAt(runAt)
                    .withDependsOn(List.of(dependency.id()))));
        }
        assertThat(later).extracting(Job::status).containsOnly(JobStatus.WAITING);

        release.countDown();

        for (Job job : later) {
            Job released = awaitStatus(worker, job.id(), JobStatus.QUEUED);
            assertThat(released.availableAt()).as(job.id().toString()).isEqualTo(runAt);
        }
    }

    @Test
    void failureOfADependencyFailsItsDependentsInCascade() {
        Skiplock worker = worker(new CountDownLatch(0));
        Job broken = worker.enqueue(JobRequest.of("step", new Step("broken", true)).withMaxAttempts(1)
                .withQueue("held"));
        Job child = worker.enqueue(JobRequest.of("step", new Step("child", false)).withDependsOn(List.of(broken.id())));
        Job grandchild = worker.enqueue(JobRequest.of("step", new Step("grandchild", false))
                .withDependsOn(List.of(child.id())));

        worker.cancel(broken.id());

        Job failedChild = awaitStatus(worker, child.id(), JobStatus.FAILED);
        assertThat(failedChild.lastError()).isEqualTo("dependency " + broken.id() + " cancelled");
        assertThat(awaitStatus(worker, grandchild.id(), JobStatus.FAILED).lastError())
                .isEqualTo("dependency " + child.id() + " failed");
        assertThat(failedChild.finishedAt()).isNotNull();
    }

    @Test
    void deletingAJobDeletesItsDependencyRowsButNotThoseOfItsWaitingDependents() {
        Skiplock client = client();
        Job parent = client.enqueue(JobRequest.of("work", null).withQueue("parking"));
        Job child = client.enqueue(JobRequest.of("work", null).withQueue("parking").withDependsOn(List.of(parent.id())));
        Job grandchild = client.enqueue(JobRequest.of("work", null).withQueue("parking")
                .withDependsOn(List.of(child.id())));
        client.cancel(child.id()); // the grandchild fails with it; the parent stays queued

        client.delete(child.id());

        assertThat(dependencyRows(client)).as("the child's own row went with it; the grandchild's stays")
                .containsExactly(grandchild.id() + "->" + child.id());
        client.delete(grandchild.id());
        assertThat(dependencyRows(client)).isEmpty();
    }

    private static List<String> dependencyRows(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT job_id, depends_on FROM skiplock_job_dependencies ORDER BY job_id",
                row -> row.getString(1) + "->" + row.getString(2));
    }

    @Test
    void finishedDependenciesDecideAtEnqueue() {
        Skiplock worker = worker(new CountDownLatch(0));
        Job ok = worker.enqueue(JobRequest.of("step", new Step("ok", false)));
        Job bad = worker.enqueue(JobRequest.of("step", new Step("bad", true)).withMaxAttempts(1));
        awaitStatus(worker, ok.id(), JobStatus.SUCCEEDED);
        awaitStatus(worker, bad.id(), JobStatus.FAILED);

        Job afterOk = worker.enqueue(JobRequest.of("step", new Step("x", false)).withDependsOn(List.of(ok.id())));
        Job afterBad = worker.enqueue(JobRequest.of("step", new Step("y", false)).withDependsOn(List.of(bad.id())));

        assertThat(afterOk.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(afterBad.status()).isEqualTo(JobStatus.FAILED);
        assertThat(afterBad.lastError()).isEqualTo("dependency " + bad.id() + " failed");
        awaitStatus(worker, afterOk.id(), JobStatus.SUCCEEDED);
    }

    @Test
    void unknownOrForeignDependencyIsRejectedAndNothingIsWritten() {
        Skiplock client = client();
        Job foreign = client.tenant("other").enqueue(JobRequest.of("step", new Step("x", false)));
        int before = client.list(JobQuery.all()).jobs().size();

        assertThatThrownBy(() -> client.enqueue(JobRequest.of("step", null).withDependsOn(List.of(UUID.randomUUID()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dependsOn:");
        assertThatThrownBy(() -> client.enqueue(JobRequest.of("step", null).withDependsOn(List.of(foreign.id()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dependsOn:");
        assertThatThrownBy(() -> client.enqueueMany(List.of(JobRequest.of("step", null),
                JobRequest.of("step", null).withDependsOn(List.of(UUID.randomUUID())))))
                .as("a batch's error names the job").isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("jobs[1].dependsOn:");
        assertThatThrownBy(() -> client.enqueueMany(List.of(JobRequest.of("step", null).withDependsOn(List.of(UUID.randomUUID())))))
                .as("a batch of one names its job too").isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("jobs[0].dependsOn:");
        assertThatThrownBy(() -> client.enqueueMany(List.of(JobRequest.of("step", null),
                JobRequest.of("step", java.util.Map.of("text", "a\u0000b")))))
                .as("as does its other refusals").isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("jobs[1].args:");

        assertThat(client.list(JobQuery.all()).jobs()).hasSize(before);
    }
}
