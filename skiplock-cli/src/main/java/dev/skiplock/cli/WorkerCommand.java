package dev.skiplock.cli;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Option;

/**
 * {@code skiplock worker}: a worker-only process (scale-out) running command jobs (and the kinds of
 * any {@link dev.skiplock.HandlerProvider} on the classpath) of the given queues; SIGTERM shuts it
 * down gracefully. Tools were resolved at submit, so it needs none.
 */
@Command(name = "worker", description = "Run workers only, against the same database as a server.")
final class WorkerCommand implements Callable<Integer> {
    @ParentCommand
    Main cli;

    @Mixin
    WorkerOptions workerOptions;

    @Option(names = "--queues", split = ",", defaultValue = "default", description = "queues to work (default ${DEFAULT-VALUE})")
    List<String> queues;

    @Option(names = "--concurrency", defaultValue = "8", description = "jobs per queue at once (default ${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--retention", defaultValue = "7d",
            description = "delete jobs finished longer ago than this (default ${DEFAULT-VALUE})")
    String retention;

    @Option(names = "--prune-interval", defaultValue = "60s",
            description = "how often this worker deletes jobs past --retention (default ${DEFAULT-VALUE})")
    String pruneInterval;

    /** The fields this command sets from its options: the lease options', and its own. */
    private static final java.util.Map<String, String> OPTION_OF_FIELD;

    static {
        java.util.Map<String, String> fields = new java.util.HashMap<>(WorkerOptions.OPTION_OF_FIELD);
        fields.putAll(java.util.Map.of("queue", "--queues", "concurrency", "--concurrency", "retention", "--retention",
                "pruneInterval", "--prune-interval"));
        OPTION_OF_FIELD = java.util.Map.copyOf(fields);
    }

    @Override
    public Integer call() throws Exception {
        SkiplockConfig.Builder builder = workerOptions.apply(SkiplockConfig.builder());
        queues.forEach(queue -> builder.queue(queue, concurrency));
        builder.retention(Durations.parse("--retention", retention))
                .pruneInterval(Durations.parse("--prune-interval", pruneInterval));
        Skiplock skiplock = workerOptions.builder(cli.options().jdbcUrl(), WorkerOptions.build(builder, OPTION_OF_FIELD)).build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            skiplock.close();
            stopped.countDown();
        }, "skiplock-shutdown"));
        skiplock.start();
        System.out.println("skiplock worker " + skiplock.config().workerId() + " on " + skiplock.driverName()
                + " " + skiplock.config().queues());
        System.out.flush();
        stopped.await();
        return 0;
    }
}
