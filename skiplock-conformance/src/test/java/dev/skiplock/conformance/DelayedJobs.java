package dev.skiplock.conformance;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A queue of jobs scheduled for later, and one job due behind them: the data of the plan tests
 * whose statements must read past delayed jobs without reading them (the claim, the oldest queued
 * job), on either database.
 */
final class DelayedJobs {
    /** Jobs delayed at each priority. */
    static final int EACH = 5_000;

    record Work(int n) {
    }

    private DelayedJobs() {
    }

    /** {@link #EACH} jobs of queue {@code default} delayed by a day at each of {@code priorities}, in batches of 1,000. */
    static void enqueue(Skiplock producer, int... priorities) {
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        for (int priority : priorities) {
            for (int from = 0; from < EACH; from += 1_000) {
                List<JobRequest> batch = new ArrayList<>();
                for (int i = from; i < from + 1_000; i++) {
                    batch.add(JobRequest.of("work", new Work(i)).withPriority(priority).withRunAt(tomorrow));
                }
                producer.enqueueMany(batch);
            }
        }
    }

    /** One job of queue {@code default} due now at {@code priority}. */
    static Job enqueueDue(Skiplock producer, int priority) {
        return producer.enqueue(JobRequest.of("work", new Work(-1)).withPriority(priority));
    }
}
