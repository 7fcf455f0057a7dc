package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code steps}: what a step checkpoint costs (DESIGN §5, steps). First one job runs N steps one
 * after another, each timed from the call to its return (its {@code started} event, the fenced
 * write of its output and its {@code succeeded} event); then {@code --concurrency} jobs run N steps
 * between them at once, for the checkpoints per second the database takes. Each step's body
 * returns a small JSON object at once, so the time is the checkpoint's.
 */
final class StepsBench {
    static final String KIND = "steps";
    private static final Duration TIMEOUT = Duration.ofMinutes(30);

    private final BenchSettings settings;

    StepsBench(BenchSettings settings) {
        this.settings = settings;
    }

    record Work(int steps, boolean timed) {
    }

    ObjectNode run(String url) throws InterruptedException {
        double[] millis = new double[settings.jobs()];
        try (Skiplock worker = Skiplock.builder().url(url)
                .config(SkiplockConfig.builder().queue("default", settings.concurrency())
                        .maxStepsPerJob(Math.max(1000, settings.jobs())).build())
                .handler(KIND, Work.class, context -> {
                    for (int i = 0; i < context.args().steps(); i++) {
                        int step = i;
                        long start = System.nanoTime();
                        context.step("s" + step, () -> Map.of("step", step, "ok", true));
                        if (context.args().timed()) {
                            millis[step] = (System.nanoTime() - start) / 1e6;
                        }
                    }
                    return JobOutcome.complete();
                })
                .build()
                .start()) {
            BenchSupport.progress("steps: one job of " + settings.jobs() + " steps, one after another (timed per step)");
            Job sequential = worker.enqueue(JobRequest.of(KIND, new Work(settings.jobs(), true)));
            requireSucceeded(worker.awaitTerminal(sequential.id(), TIMEOUT));

            int jobs = Math.min(settings.concurrency(), settings.jobs());
            int perJob = settings.jobs() / jobs;
            BenchSupport.progress("steps: " + jobs + " jobs of " + perJob + " steps at once (timed together)");
            List<JobRequest> requests = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                requests.add(JobRequest.of(KIND, new Work(perJob, false)));
            }
            long start = System.nanoTime();
            List<Job> parallel = worker.enqueueMany(requests);
            for (Job job : parallel) {
                requireSucceeded(worker.awaitTerminal(job.id(), TIMEOUT));
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            Arrays.sort(millis);
            ObjectNode result = BenchSupport.result(settings);
            result.put("ok", true);
            result.put("step_mean_ms", LatencyBench.round(Arrays.stream(millis).average().orElse(0)));
            result.put("step_p50_ms", LatencyBench.round(LatencyBench.percentile(millis, 50)));
            result.put("step_p99_ms", LatencyBench.round(LatencyBench.percentile(millis, 99)));
            result.put("parallel_jobs", jobs);
            result.put("steps_per_s", Math.round(jobs * perJob / seconds));
            return result;
        }
    }

    private static void requireSucceeded(Job job) {
        if (job.status() != JobStatus.SUCCEEDED) {
            throw new IllegalStateException("steps: job " + job.id() + " ended " + job.status().wireName()
                    + (job.lastError() == null ? "" : ": " + job.lastError()));
        }
    }
}
