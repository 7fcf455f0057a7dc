package dev.skiplock.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import dev.skiplock.spring.SkiplockHandler;
import dev.skiplock.spring.SkiplockJobs;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Closing the application context gives a job still running back to the queue. */
class ShutdownTest {
    /** Blocks until interrupted (registered by this test only, so other tests' contexts lack it). */
    @SkiplockHandler(kind = "report.build", args = Map.class)
    static class BlockingReport implements JobHandler<Map<String, Object>> {
        final CountDownLatch started = new CountDownLatch(1);

        @Override
        public JobOutcome handle(JobContext<Map<String, Object>> context) throws InterruptedException {
            started.countDown();
            new CountDownLatch(1).await();
            return JobOutcome.complete();
        }
    }

    @Test
    void closingTheContextReleasesAJobThatDidNotFinishWithinTheShutdownTimeout() throws Exception {
        try (TestPostgres database = new TestPostgres()) {
            Job job;
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ExampleApplication.class,
                    BlockingReport.class).web(WebApplicationType.NONE)
                    .run("--spring.datasource.url=" + database.url(), "--skiplock.shutdown-timeout=100ms")) {
                job = context.getBean(SkiplockJobs.class).enqueue(JobRequest.of("report.build", Map.of("day", 1)));
                assertThat(context.getBean(BlockingReport.class).started.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            }

            try (SkiplockClient client = Skiplock.builder().url(database.url()).buildClient()) {
                Job released = client.get(job.id()).orElseThrow();
                assertThat(released.status()).isEqualTo(JobStatus.QUEUED);
                assertThat(released.lockedBy()).isNull();
                assertThat(released.lockedUntil()).isNull();
                assertThat(released.attempt()).isEqualTo(1);
            }
        }
    }
}
