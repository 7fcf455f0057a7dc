package dev.skiplock.conformance;

import dev.skiplock.HandlerProvider;
import dev.skiplock.JobContext;
import dev.skiplock.JobOutcome;
import dev.skiplock.Skiplock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The handlers of the fault-injection suite, loaded by {@code skiplock worker} through
 * {@link HandlerProvider}. Each execution appends to the append-only execution ledger:
 * {@code start <job> <attempt> <pid> <epoch ms>} before the work and {@code end …} after it.
 */
public final class FaultHandlers implements HandlerProvider {
    /** The exit status of a worker halted by {@code fault.exit}. */
    static final int HALT_STATUS = 86; // distinct from the CLI's own exit codes (0-3)

    /** A job's args: where to append, and how long the work takes. */
    public record Args(String ledger, int sleepMs) {
    }

    @Override
    public void register(Skiplock.Builder builder) {
        builder.handler("fault.work", Args.class, context -> {
            record(context, "start");
            Thread.sleep(context.args().sleepMs()); // the job's work: a fault must find it in flight
            record(context, "end");
            return JobOutcome.complete();
        });
        builder.handler("fault.throw", Args.class, context -> {
            record(context, "start");
            throw new IllegalStateException("poison: this handler always throws");
        });
        builder.handler("fault.hang", Args.class, context -> {
            record(context, "start");
            new CountDownLatch(1).await(1, TimeUnit.HOURS); // until the job's timeout interrupts it
            return JobOutcome.complete();
        });
        builder.handler("fault.exit", Args.class, context -> {
            record(context, "start");
            Runtime.getRuntime().halt(HALT_STATUS); // poison: takes the whole worker process down, no shutdown hooks
            return JobOutcome.complete();
        });
    }

    /** One line per write with O_APPEND: lines of concurrent processes never interleave. */
    static void record(JobContext<Args> context, String event) throws IOException {
        String line = event + " " + context.job().id() + " " + context.attempt() + " " + ProcessHandle.current().pid()
                + " " + System.currentTimeMillis() + "\n";
        Files.write(Path.of(context.args().ledger()), line.getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }
}
