package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresDependenciesTest extends DependenciesContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * PostgreSQL's dependency trigger runs once per statement (migration 0013) over all the jobs the
     * statement finished, as a completion batch does: a dependent of two of them is settled once, by
     * both outcomes (queued when both succeeded; failed naming the one that did not), and a failure
     * it causes cascades to that dependent's own dependents.
     */
    @Test
    void oneStatementFinishingSeveralDependenciesSettlesEachDependentByAllOfThem() {
        Skiplock client = client();
        List<Job> parents = client.enqueueMany(List.of(JobRequest.of("step", null).withQueue("held"),
                JobRequest.of("step", null).withQueue("held"), JobRequest.of("step", null).withQueue("held"),
                JobRequest.of("step", null).withQueue("held")));
        Job released = client.enqueue(JobRequest.of("step", null).withQueue("held")
                .withDependsOn(List.of(parents.get(0).id(), parents.get(1).id())));
        Job failed = client.enqueue(JobRequest.of("step", null).withQueue("held")
                .withDependsOn(List.of(parents.get(2).id(), parents.get(3).id())));
        Job cascaded = client.enqueue(JobRequest.of("step", null).withQueue("held").withDependsOn(List.of(failed.id())));

        int finished = Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs"
                + " SET status = CASE WHEN id = ? THEN 'failed' ELSE 'succeeded' END, finished_at = now()"
                + " WHERE id IN (?, ?, ?, ?)", parents.get(3).id(), parents.get(0).id(), parents.get(1).id(),
                parents.get(2).id(), parents.get(3).id());

        assertThat(finished).isEqualTo(4);
        assertThat(client.get(released.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        assertThat(client.events(released.id(), 0, 10)).extracting(JobEvent::status).containsExactly("waiting", "queued");
        assertThat(client.events(failed.id(), 0, 10)).extracting(JobEvent::status, JobEvent::message).containsExactly(
                tuple("waiting", null), tuple("failed", "dependency " + parents.get(3).id() + " failed"));
        assertThat(client.get(cascaded.id()).orElseThrow().lastError()).isEqualTo("dependency " + failed.id() + " failed");
    }
}
