package dev.skiplock.cli;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import dev.skiplock.RetryPolicy;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Option;

/**
 * {@code skiplock demo}: enqueues a handful of jobs and works them in this process, printing each
 * step — a first look at the lifecycle (a retry, a timeout, a cancel) on a local SQLite file.
 */
@Command(name = "demo", description = "Enqueue a few jobs and work them here, showing retries, a timeout and a cancel.")
final class DemoCommand implements Callable<Integer> {
    @ParentCommand
    Main cli;

    @Option(names = "--jobs", defaultValue = "5", description = "greetings to enqueue (default ${DEFAULT-VALUE})")
    int jobs;

    static final String QUEUE = "demo";

    record Greeting(String name) {
    }

    @Override
    public Integer call() throws Exception {
        if (jobs < 1 || jobs > 10_000) {
            throw new IllegalArgumentException("--jobs: must be between 1 and 10000");
        }
        // A queue of its own: on the database `serve` uses (the same default --db), a worker of
        // queue default would claim a user's queued jobs and fail them (no handler for their kind),
        // and a server's worker would fail the demo's.
        SkiplockConfig config = SkiplockConfig.builder().queue(QUEUE, 4)
                .retryPolicy(new RetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(2), 0.1)).build();
        try (Skiplock skiplock = Skiplock.builder().url(cli.options().jdbcUrl()).config(config)
                .handler("greet", Greeting.class, context -> {
                    System.out.printf("  run   %s attempt %d: hello, %s%n", context.job().kind(), context.attempt(),
                            context.args().name());
                    return JobOutcome.complete(Map.of("greeted", context.args().name()));
                })
                .handler("flaky", Greeting.class, context -> {
                    System.out.printf("  run   flaky attempt %d%n", context.attempt());
                    if (context.attempt() < 2) {
                        throw new IllegalStateException("first attempt fails on purpose");
                    }
                    return JobOutcome.complete();
                })
                .handler("slow", Greeting.class, context -> {
                    System.out.println("  run   slow: sleeps past its 1 s timeout");
                    TimeUnit.SECONDS.sleep(30);
                    return JobOutcome.complete();
                })
                .build()) {
            System.out.println("skiplock demo on " + DatabaseUrl.withoutPassword(cli.options().jdbcUrl()) + ", queue " + QUEUE);
            List<Job> enqueued = new ArrayList<>();
            for (int i = 1; i <= jobs; i++) {
                enqueued.add(skiplock.enqueue(JobRequest.of("greet", new Greeting("guest " + i)).withQueue(QUEUE)));
            }
            enqueued.add(skiplock.enqueue(JobRequest.of("flaky", new Greeting("x")).withQueue(QUEUE).withMaxAttempts(3)));
            enqueued.add(skiplock.enqueue(JobRequest.of("slow", new Greeting("x")).withQueue(QUEUE)
                    .withTimeout(Duration.ofSeconds(1)).withMaxAttempts(1)));
            Job cancelled = skiplock.cancel(skiplock.enqueue(JobRequest.of("greet", new Greeting("nobody")).withQueue(QUEUE)).id());
            enqueued.add(cancelled);
            System.out.printf("enqueued %d jobs (one cancelled before it ran); starting a worker%n", enqueued.size());
            skiplock.start();
            for (Job job : enqueued) {
                Job done = waitForTerminal(skiplock, job);
                System.out.printf("  %-9s %s %s attempt %d%s%n", done.status().wireName(), done.kind(), done.id(),
                        done.attempt(), done.lastError() == null ? "" : " (" + done.lastError() + ")");
            }
            for (QueueCount count : skiplock.count().stream().filter(count -> count.queue().equals(QUEUE)).toList()) {
                System.out.printf("queue %s: %d %s%n", count.queue(), count.jobs(), count.status().wireName());
            }
        }
        return 0;
    }

    private static Job waitForTerminal(Skiplock skiplock, Job job) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Job current = skiplock.get(job.id()).orElseThrow();
            if (current.status().isTerminal()) {
                return current;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException("job " + job.id() + " did not finish within 60 s: "
                + JobStatus.RUNNING.wireName());
    }
}
