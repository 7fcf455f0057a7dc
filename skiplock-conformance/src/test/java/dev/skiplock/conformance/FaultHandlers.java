package dev.skiplock.conformance;

import dev.skiplock.HandlerProvider;
import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.Skiplock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
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

    /**
     * What a hostile job logs, reports, returns and throws: a NUL character and lone UTF-16
     * surrogates, which no database stores as given (each must come back as U+FFFD).
     */
    static final String HOSTILE = "hostile \u0000 nul, lone \uD800 high and \uDC00 low surrogate";

    /**
     * A job's args: where to append, how long the work takes, and (if not 0) the wall-clock instant
     * (epoch ms) before which it does not end: jobs in different workers given the same instant
     * finish together, so their outcomes commit in overlapping transactions.
     */
    public record Args(String ledger, int sleepMs, long notBeforeMillis) {
        public Args(String ledger, int sleepMs) {
            this(ledger, sleepMs, 0);
        }
    }

    @Override
    public void register(Skiplock.Builder builder) {
        JobHandler<Args> work = context -> {
            record(context, "start");
            Thread.sleep(context.args().sleepMs()); // the job's work: a fault must find it in flight
            // A diamond's two parents end at one instant, so their completions commit in overlapping
            // transactions: the timing is what the suite injects, not a wait for a condition.
            Thread.sleep(Math.max(0, context.args().notBeforeMillis() - System.currentTimeMillis()));
            record(context, "end");
            return JobOutcome.complete();
        };
        builder.handler("fault.work", Args.class, work);
        builder.handler("fault.diamond", Args.class, work);
        builder.handler("fault.cron", Args.class, work);
        builder.handler("fault.hostile", Args.class, context -> {
            record(context, "start");
            beHostile(context);
            record(context, "end");
            return JobOutcome.complete(Map.of("text", HOSTILE));
        });
        builder.handler("fault.hostile.throw", Args.class, context -> {
            record(context, "start");
            beHostile(context);
            throw new IllegalStateException(HOSTILE);
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

    private static void beHostile(JobContext<Args> context) throws InterruptedException {
        context.log("stdout", "out: " + HOSTILE);
        context.log("stderr", "err: " + HOSTILE);
        context.progress(Map.of("note", HOSTILE));
        Thread.sleep(context.args().sleepMs()); // in flight, as fault.work
    }

    /** One line per write with O_APPEND: lines of concurrent processes never interleave. */
    static void record(JobContext<Args> context, String event) throws IOException {
        String line = event + " " + context.job().id() + " " + context.attempt() + " " + ProcessHandle.current().pid()
                + " " + System.currentTimeMillis() + "\n";
        Files.write(Path.of(context.args().ledger()), line.getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }
}
