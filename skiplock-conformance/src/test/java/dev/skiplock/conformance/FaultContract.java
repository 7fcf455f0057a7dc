package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fault injection (DESIGN §2): thousands of jobs on real {@code skiplock worker} processes while
 * workers are SIGKILLed and restarted, SIGSTOPped past their lease, halted by poison jobs, and the
 * database restarts. Checked afterwards from the database and the append-only execution ledger:
 * no job lost, none finalized twice, attempts within bounds, re-executions only after a lease
 * loss, every rescue within lease + reaper + poll + backoff. Short form here; long form with
 * {@code -Dskiplock.faults=long} (README).
 */
abstract class FaultContract extends ContractBase {
    /** The server to restart, or null where the database has no server (SQLite). */
    protected abstract FaultPostgres restartable();

    @Test
    void noJobIsLostOrFinalizedTwiceWhileWorkersAreKilledPausedHaltedAndTheDatabaseRestarts() throws Exception {
        FaultPlan plan = FaultPlan.forThisRun(restartable() != null);
        Path dir = Files.createTempDirectory("skiplock-faults-");
        Path ledger = dir.resolve("ledger.txt");
        Path runDir = Files.createDirectories(dir.resolve("runs"));
        Path logDir = Files.createDirectories(dir.resolve("logs"));
        Skiplock client = client();
        List<JobRequest> jobs = jobs(plan, ledger);
        for (int from = 0; from < jobs.size(); from += 1000) {
            client.enqueueMany(jobs.subList(from, Math.min(from + 1000, jobs.size())));
        }

        FaultRun run = new FaultRun(database.url(), runDir, logDir, plan, restartable());
        long startedAt = System.nanoTime();
        try (run) {
            run.start();
            run.startFaults();
            await().atMost(Duration.ofMinutes(plan.form().equals("long") ? 30 : 5)).pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptions() // the database may be restarting
                    .until(() -> run.faultsDone() && unfinished(client) == 0);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - startedAt);

        FaultAnalysis.Report report = new FaultAnalysis().analyse(database.name(), plan, jobRows(client),
                statusEvents(client, database.name()), FaultLedger.read(ledger), run.faults(), run.workerPids().size(),
                run.workerLogLines());
        String json = Json.MAPPER.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report);
        System.out.printf("[%s] fault run (%s form) in %d s:%n%s%n", database.name(), plan.form(), took.toSeconds(), json);
        Files.writeString(Path.of("target", "fault-report-" + database.name() + "-" + plan.form() + ".json"), json);

        assertThat(report.violations()).isEmpty();
        assertThat(report.killed()).isEqualTo(plan.kills());
        assertThat(report.paused()).isEqualTo(plan.pauses());
        assertThat(report.databaseRestarts()).isEqualTo(plan.databaseRestarts());
        // Whether another worker rescues a paused worker's jobs depends on timing: on SQLite a worker
        // stopped while it holds the write lock stalls every writer, and right after a database
        // restart the others may still be backing off when it resumes (then it reaps and re-adopts
        // its own jobs). When another worker did rescue them, the fence must have held.
        int rescuedFromPausedWorkers = report.duplicateExecutions().getOrDefault(FaultAnalysis.PAUSED, 0);
        if (rescuedFromPausedWorkers > 0) {
            assertThat(report.staleFinalizationsRejected() + report.leasesLost())
                    .as("a worker resumed after its lease expired finalizes nothing: its outcomes are rejected or its executions stopped")
                    .isPositive();
        }
        assertThat(report.exited()).as("each halting poison job takes down one worker per attempt it runs")
                .isBetween(plan.exitJobs(), plan.exitJobs() * 2);
        deleteRecursively(dir);
    }

    private static List<JobRequest> jobs(FaultPlan plan, Path ledger) {
        Random random = new Random();
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < plan.healthyJobs(); i++) {
            jobs.add(JobRequest.of("fault.work", new FaultHandlers.Args(ledger.toString(), 20 + random.nextInt(180)))
                    .withMaxAttempts(10));
        }
        for (int i = 0; i < plan.commandJobs(); i++) {
            jobs.add(JobRequest.of("command", Map.of("argv", List.of("sh", "-c", FaultLedger.commandScript(ledger, "0.3"))))
                    .withMaxAttempts(10));
        }
        FaultHandlers.Args poison = new FaultHandlers.Args(ledger.toString(), 0);
        for (int i = 0; i < plan.throwJobs(); i++) {
            jobs.add(JobRequest.of("fault.throw", poison).withMaxAttempts(3));
        }
        for (int i = 0; i < plan.hangJobs(); i++) {
            jobs.add(JobRequest.of("fault.hang", poison).withMaxAttempts(2).withTimeout(Duration.ofSeconds(1)));
        }
        for (int i = 0; i < plan.exitJobs(); i++) {
            jobs.add(JobRequest.of("fault.exit", poison).withMaxAttempts(2));
        }
        Collections.shuffle(jobs, random);
        return jobs;
    }

    private static long unfinished(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_jobs"
                + " WHERE status NOT IN ('succeeded', 'failed', 'timed_out', 'cancelled')", row -> row.getLong(1)).getFirst();
    }

    private static List<FaultAnalysis.JobRow> jobRows(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT id, kind, status, attempt, max_attempts, last_error FROM skiplock_jobs",
                row -> new FaultAnalysis.JobRow(row.getString(1), row.getString(2), row.getString(3), row.getInt(4),
                        row.getInt(5), row.getString(6)));
    }

    private static List<FaultAnalysis.StatusEvent> statusEvents(Skiplock client, String database) {
        String epochMillis = database.equals("postgres") ? "CAST(extract(epoch FROM ts) * 1000 AS bigint)" : "ts";
        return Jdbc.query(client.dataSource(), "SELECT job_id, seq, attempt, status, message, " + epochMillis
                + " FROM skiplock_job_events WHERE type = 'status' ORDER BY seq",
                row -> new FaultAnalysis.StatusEvent(row.getString(1), row.getLong(2), row.getInt(3), row.getString(4),
                        row.getString(5), row.getLong(6)));
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (var files = Files.walk(dir)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
