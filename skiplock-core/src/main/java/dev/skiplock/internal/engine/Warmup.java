package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.Claimed;
import java.util.ArrayList;
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
 * The args deserializers are built; {@value #REHEARSALS} jobs are inserted, claimed in one claim
 * and completed in one batch on a pooled connection, all rolled back at the end, so that this JVM
 * has run that code (and the connection's backend planned the statements and compiled the
 * triggers they fire). Then six jobs go the same way, one a claim, on each connection the pool
 * holds idle (on PostgreSQL all at once), so that each backend the claimer, the completer and the
 * look-behind start on has run those statements, the claim past pgjdbc's prepare threshold
 * (HikariCP replaces a connection after its maximum lifetime, 30 minutes by default: its
 * successor's first claim pays again, once). Issue #12: the first real claim, on a connection
 * the completer had left to the claimer, took 15.6 ms in PostgreSQL against 0.8 ms on a
 * rehearsed one; the harness's latency mode against the build without it, interleaved runs:
 * pickup p99 median 12.1 → 8.7 ms, max 22.6 → 16.2 ms, seven runs each (earlier versions of it,
 * eight runs each: 10.2 → 9.1 and 15.7 → 9.3 ms); this part took 0.3 s for eleven connections.
 * The queues' meters are made; what follows a claim (the floor, the
 * counters, an execution with its slot) runs for each claimed job on instances of its own; each
 * job is registered in a registry of its own; a task per job runs on the handlers' executor; a
 * span per job starts and ends on OpenTelemetry's no-op tracer; the completer's loop writes one
 * empty batch. Many jobs rather than one: what runs once per job (reading a claimed row and its
 * JSON, starting an execution) is then compiled by the JIT's first tier before the first real
 * job; what runs once per statement is not (issue #12: the harness's pickup p50, median of six
 * interleaved runs, 1.50 ms with one rehearsal job, 1.40 with 500; the warm-up takes about
 * 130 ms more). No row stays in the database, no meter or span of the application's counts the
 * rehearsal. Failing here never stops a start (it only costs the first jobs the time); it is
 * logged as a warning.
 */
final class Warmup {
    private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
    /** The rehearsal jobs' queue and kind: no worker's (and uncommitted rows no other connection sees anyway). */
    static final String REHEARSAL = "skiplock.warmup";
    /** How many jobs the rehearsal takes through the hot path: past the JIT's first-tier threshold (200 calls). */
    static final int REHEARSALS = 500;
    /**
     * How many jobs each idle connection of the pool takes through the same path, one a claim: its
     * backend's first runs, and its claim past pgjdbc's default prepare threshold (a fifth run).
     */
    static final int EACH_CONNECTION = 6;
    /** How long the warm-up waits for the completer's loop to take an empty batch (it takes ~100 µs). */
    private static final java.time.Duration COMPLETER_PASS = java.time.Duration.ofSeconds(2);

    private Warmup() {
    }

    static void run(Iterable<String> queues, Handlers handlers, Claims claims, Counters counters, JobRunner runner,
            Completer completer) {
        long started = System.nanoTime();
        int connections = 0;
        try {
            handlers.prepareArgsReaders();
            counters.warmUp(queues);
            List<Claimed> rehearsed = claims.rehearse(rehearsalJobs(REHEARSALS));
            // After: a worker's own pool opens its connections meanwhile
            connections = rehearseOnEachConnection(claims);
            if (rehearsed.size() < REHEARSALS) {
                LOG.warn("warm-up: {} of {} rehearsal jobs were claimed and completed; the first jobs pay for the rest",
                        rehearsed.size(), REHEARSALS);
            }
            // What follows a claim, on instances of its own: the executions and their slots, the floor, the counters
            List<Execution> executions = new ArrayList<>();
            QueueFloor floor = new QueueFloor();
            for (Claimed claimed : rehearsed) {
                Execution execution = new Execution(claimed, new Slots(1, 1, new Doorbell()));
                executions.add(execution);
                floor.claimed(ClaimFloor.of(claimed.job()), List.of(claimed));
                JobTracing.rehearse(claimed.job());
            }
            runner.warmUp(executions);
            Counters.rehearse(REHEARSAL, rehearsed, executions);
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
        LOG.debug("warm-up took {} ms ({} connections rehearsed)", (System.nanoTime() - started) / 1_000_000,
                connections);
    }

    /** A failure here costs only the backends' first runs; the rest of the warm-up goes on. */
    private static int rehearseOnEachConnection(Claims claims) {
        try {
            return claims.rehearseOnEachConnection(() -> rehearsalJobs(EACH_CONNECTION));
        } catch (RuntimeException e) {
            LOG.warn("warm-up: the rehearsal on each connection failed; their first claims pay for it: {}", e.toString());
            return 0;
        }
    }

    private static List<Job> rehearsalJobs(int count) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(Job.builder().id(Uuid7.next()).tenant(Skiplock.DEFAULT_TENANT).queue(REHEARSAL).kind(REHEARSAL)
                    .args(Json.MAPPER.createObjectNode().put("i", i)).metadata(Json.MAPPER.createObjectNode())
                    // First in claim order: an application's jobs of that queue (if any) take none of the claim's places
                    .priority(Integer.MAX_VALUE).status(JobStatus.QUEUED).maxAttempts(1).dependsOn(List.of()).build());
        }
        return jobs;
    }
}
