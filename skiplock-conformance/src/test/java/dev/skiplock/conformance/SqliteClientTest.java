package dev.skiplock.conformance;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SqliteClientTest extends ClientContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    /**
     * SQLite has no notifications across processes; instances in one JVM wake each other's workers
     * per database file, also when their URLs name it apart (here through a link). The worker polls
     * once an hour, so only the other instance's wake-up claims the job within the test. Before,
     * the file was the URL's text, and the job waited for the poll.
     */
    @Test
    void instancesNamingTheFileApartWakeEachOthersWorkers() throws Exception {
        Path file = Path.of(database.url().substring("jdbc:sqlite:".length()));
        Skiplock worker = started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofHours(1)))
                .handler("ping", Object.class, context -> JobOutcome.complete()));
        // its own wake-up: the worker's first claim is behind it, so a claim now needs a wake-up
        awaitStatus(worker, worker.enqueue(JobRequest.of("ping", null)).id(), JobStatus.SUCCEEDED);
        Path link = Files.createSymbolicLink(file.resolveSibling("link-to-jobs.db"), file);
        Skiplock other = track(Skiplock.builder().url("jdbc:sqlite:" + link).config(fastConfig().build()).build());

        Job job = other.enqueue(JobRequest.of("ping", null));

        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
    }
}
