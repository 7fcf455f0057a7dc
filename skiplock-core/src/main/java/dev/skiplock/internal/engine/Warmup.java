package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.Claimed;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the first-use costs of the claim → execute → complete path before the worker reports it
 * started, so its first jobs do not pay them (issue #12: a cold worker made its first jobs wait
 * ~60 ms, serially: the first real claim took 13–35 ms and the first start of an execution 13 ms;
 * then, measured with class-loading events, the first jobs still paid for linking the code that
 * follows a claim — each lambda, a record's equals and hashCode, the completer's type switch —
 * 1–25 ms each, on the claimer's and the completer's threads while the next jobs waited).
 * The args deserializers are built; a job is inserted, claimed and completed on a pooled
 * connection, all rolled back at the end, so that this JVM has run that code (and the
 * connection's backend planned the statements and compiled the triggers they fire); the
 * queues' meters are made; what follows a claim (the floor, the counters, an execution with
 * its slot) runs for the claimed job on instances of its own; the job is registered in a registry
 * of its own; one task runs on the handlers' executor; a span starts and ends on OpenTelemetry's
 * no-op tracer; the completer's loop writes one empty batch. No row stays in the database, no
 * meter or span of the application's counts the rehearsal. Failing here never stops a start (it
 * only costs the first jobs the time); it is logged as a warning.
 */
final class Warmup {
    private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
    /** The rehearsal job's queue and kind: no worker's (and an uncommitted row no other connection sees anyway). */
    static final String REHEARSAL = "skiplock.warmup";
    /** How long the warm-up waits for the completer's loop to take an empty batch (it takes ~100 µs). */
    private static final java.time.Duration COMPLETER_PASS = java.time.Duration.ofSeconds(2);

    private Warmup() {
    }

    static void run(Iterable<String> queues, Handlers handlers, Claims claims, Counters counters, JobRunner runner,
            Completer completer) {
        long started = System.nanoTime();
        try {
            handlers.prepareArgsReaders();
            counters.warmUp(queues);
            List<Claimed> rehearsed = claims.rehearse(rehearsalJob());
            if (rehearsed.isEmpty()) {
                LOG.warn("warm-up: the rehearsal job was not claimed and completed; the first jobs pay for the first use");
            }
            for (Claimed claimed : rehearsed) {
                // What follows a claim, on instances of its own: the execution and its slot, the floor, the counters
                Execution execution = new Execution(claimed, new Slots(1, 1, new Doorbell()));
                runner.warmUp(execution);
                new QueueFloor().claimed(ClaimFloor.of(claimed.job()), List.of(claimed));
                Counters.rehearse(REHEARSAL, List.of(claimed), execution);
                JobTracing.rehearse(claimed.job());
            }
            // The completer's loop takes one empty batch (its type switch, its flush); bounded, so a
            // completer that stopped (a close racing this start) never holds the start up.
            if (!completer.awaitWritten(COMPLETER_PASS)) {
                LOG.warn("warm-up: the completer did not take its empty batch within {}; its first batch pays for it",
                        COMPLETER_PASS);
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("warm-up failed; the first jobs pay for the first use: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.debug("warm-up took {} ms", (System.nanoTime() - started) / 1_000_000);
    }

    private static Job rehearsalJob() {
        return Job.builder().id(Uuid7.next()).tenant(Skiplock.DEFAULT_TENANT).queue(REHEARSAL).kind(REHEARSAL)
                .args(Json.MAPPER.createObjectNode().put("i", 0)).metadata(Json.MAPPER.createObjectNode())
                .status(JobStatus.QUEUED).maxAttempts(1).dependsOn(List.of()).build();
    }
}
