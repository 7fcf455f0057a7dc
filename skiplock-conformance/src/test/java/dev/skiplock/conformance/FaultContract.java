package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Fault injection (DESIGN §2): thousands of jobs on real {@code skiplock worker} processes while
 * workers are SIGKILLed and restarted, SIGSTOPped past their lease, halted by poison jobs, cut off
 * from the database (a proxy that also drops claim answers after their commit), the database
 * restarts, finished jobs are retried and running ones cancelled through the API, and some workers
 * delete finished jobs after 2 s; two cron schedulers, paused and killed too, race for every slot of
 * one schedule. Among the jobs: hostile output (NUL, lone surrogates, invalid
 * UTF-8) and dependency diamonds. Checked afterwards from the database (with a record of what
 * retention deleted), the append-only execution ledger and the workers' logs: no job lost, none
 * finalized twice per terminal period, attempts within bounds and never used without an execution,
 * re-executions only after a lease loss, a paused worker that ran on after its SIGCONT saying of each
 * execution rescued from it that its lease was lost or its outcome discarded, every rescue within
 * lease + reaper + poll + backoff, no job waiting once its dependencies succeeded, no job deleted
 * unless terminal, one job per cron slot, hostile output stored replaced. Short
 * form here; long form with {@code -Dskiplock.faults=long} (README).
 */
abstract class FaultContract extends ContractBase {
    /** The server to restart, or null where the database has no server (SQLite). */
    protected abstract FaultPostgres restartable();

    @Test
    void noJobIsLostOrFinalizedTwiceWhileWorkersAreKilledPausedHaltedCutOffAndTheDatabaseRestarts() throws Exception {
        FaultPlan plan = FaultPlan.forThisRun(restartable() != null);
        Path dir = Files.createTempDirectory("skiplock-faults-");
        Path ledger = dir.resolve("ledger.txt");
        Path runDir = Files.createDirectories(dir.resolve("runs"));
        Path logDir = Files.createDirectories(dir.resolve("logs"));
        Skiplock client = client();
        FaultTables tables = new FaultTables(client.dataSource(), database.name());
        tables.recordDeletions();
        FaultJobs jobs = FaultJobs.enqueue(client, plan, ledger);

        FaultRun run = new FaultRun(database.url(), runDir, logDir, ledger, plan, restartable());
        FaultClient calls = new FaultClient(client, tables, plan.faults());
        long startedAt = System.nanoTime();
        String notEnded = null; // what the run still waited for when it gave up
        try (run; calls) {
            run.start();
            run.startFaults();
            calls.start();
            await().atMost(Duration.ofMinutes(plan.form().equals("long") ? 30 : 5)).pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptions() // the database may be restarting
                    .until(() -> run.faultsDone() && calls.done() && tables.unfinished() == 0);
            // A cron slot may fire after that look: stop the schedulers, then let the workers finish
            // what they enqueued before the run ends (found by CI: one cron job left queued).
            run.stopSchedulers();
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> tables.unfinished() == 0);
        } catch (ConditionTimeoutException e) {
            // analysed all the same: the violations say which jobs are stuck, and how
            notEnded = e.getMessage() + "; then: " + run.pending() + calls.pending() + unfinished(tables) + " unfinished jobs";
        }
        Duration took = Duration.ofNanos(System.nanoTime() - startedAt);

        FaultAnalysis.Report report = new FaultAnalysis().analyse(database.name(), plan, new FaultAnalysis.Observed(jobs,
                tables.jobs(), tables.events(), FaultLedger.read(ledger), run.faults(), run.workerPids().size(),
                run.logLinesByPid(), calls.calls(), calls.sightings(), tables.waitingWithDependenciesSucceeded(),
                run.proxiedClaims(), tables.dependencyRowsOfDeletedJobs(), tables.cronMarkers()));
        String json = Json.MAPPER.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report);
        System.out.printf("[%s] fault run (%s form) in %d s:%n%s%n", database.name(), plan.form(), took.toSeconds(), json);
        Files.writeString(Path.of("target", "fault-report-" + database.name() + "-" + plan.form() + ".json"), json);

        assertThat(report.violations()).as(notEnded == null ? "violations" : "violations of a run that did not end ("
                + notEnded + ")").isEmpty();
        assertThat(notEnded).as("every job ended and every planned fault and call was made").isNull();
        assertThat(run.chaosFailure()).as("every planned fault was injected").isNull();
        assertThat(report.run().killed()).isEqualTo(plan.faults().kills());
        assertThat(report.run().paused()).isEqualTo(plan.faults().pauses());
        assertThat(report.run().databaseRestarts()).isEqualTo(plan.faults().databaseRestarts());
        assertThat(report.run().exited()).as("each halting poison job takes down one worker per attempt it runs")
                .isBetween(plan.jobs().halting(), plan.jobs().halting() * 2);
        if (plan.workers().proxied() > 0) {
            assertThat(report.claims().answersCut()).as("the proxies cut claim answers after their commit").isPositive();
        }
        assertThat(report.cron().slots()).as("the schedulers enqueued their slots").isPositive();
        if (plan.workers().retaining() > 0) {
            assertThat(report.retention().deleted()).as("retention deleted finished jobs during the run").isPositive();
        }
        deleteRecursively(dir);
    }

    private static String unfinished(FaultTables tables) {
        try {
            return Long.toString(tables.unfinished());
        } catch (RuntimeException e) {
            return "(unknown: " + e.getMessage() + ")";
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (var files = Files.walk(dir)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
