package dev.skiplock.conformance;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresFastPathTest extends FastPathContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * An enqueue in the caller's transaction is announced by its own commit: its statement
     * notifies (one in Skiplock's own transaction is announced after the commit instead, by the
     * notifier's Announcer, which the contract's enqueue-through-another-instance test covers).
     * SQLite has no cross-instance notification for a commit it does not see: polling finds it.
     */
    @Test
    void enqueueInTheCallersTransactionWakesTheWorkerAtCommitWithoutPolling() throws Exception {
        Skiplock worker = started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock producer = client();
        awaitStatus(producer, producer.enqueue(JobRequest.of("work", new Work("warm-up"))).id(), JobStatus.SUCCEEDED);
        Job job;
        try (java.sql.Connection connection = producer.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            job = producer.enqueue(connection, JobRequest.of("work", new Work("x")));
            connection.commit();
        }

        awaitStatus(producer, job.id(), JobStatus.SUCCEEDED);
        awaitCount(() -> worker.metrics().succeeded(), 2);
    }
}
