package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.server.SkiplockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Command adoption (DESIGN §2, seed ADR-0062 §4): a command's process survives the death of the
 * {@code skiplock worker} process that started it, and the worker that adopts the job finishes it
 * from the recorded exit code, waits for it, cancels it, or — when it is gone — retries it.
 */
abstract class CommandAdoptionContract extends ContractBase {
    private Path runDir;
    private Path ledger;
    private Process worker;

    @BeforeEach
    void createFiles() throws Exception {
        runDir = Files.createTempDirectory("skiplock-runs-");
        ledger = Files.createTempFile("skiplock-ledger-", ".txt");
    }

    @AfterEach
    void removeFiles() throws Exception {
        if (worker != null) {
            WorkerProcess.kill(worker);
        }
        for (Path run : Files.list(runDir).toList()) {
            CommandRuns.killAndDelete(run);
        }
        Files.deleteIfExists(runDir);
        Files.deleteIfExists(ledger);
    }

    @Test
    void runningCommandOutlivesItsKilledWorkerAndIsAwaitedByTheAdopter() throws Exception {
        Job job = runOnDoomedWorker("echo started; echo run >> " + ledger + "; sleep 2; echo done", 1);
        WorkerProcess.kill(worker);
        assertThat(CommandRuns.alive(runDir, job)).as("the command survives its worker").isTrue();

        Skiplock adopter = adopter();
        Job done = awaitTerminal(adopter, job.id());

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(Files.readAllLines(ledger)).containsExactly("run"); // waited for, not started again
        assertThat(logLines(adopter, job)).containsExactly("stdout:started", "stdout:done");
        assertThat(adopter.metrics().resumed()).isEqualTo(1);
        await().atMost(WAIT).until(() -> !Files.exists(runDir.resolve(job.id() + "-1"))); // cleaned once durable
    }

    @Test
    void commandThatFinishedWhileNoWorkerWasAliveIsFinalizedFromItsRecordedExitCode() throws Exception {
        Job job = runOnDoomedWorker("echo out; sleep 1; echo err >&2; exit 3", 1);
        WorkerProcess.kill(worker);
        await().atMost(WAIT).until(() -> Files.exists(runDir.resolve(job.id() + "-1").resolve("exit")));

        Skiplock adopter = adopter();
        Job done = awaitTerminal(adopter, job.id());

        assertThat(done.status()).isEqualTo(JobStatus.FAILED);
        assertThat(done.lastError()).isEqualTo("exit code 3");
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(logLines(adopter, job)).containsExactlyInAnyOrder("stdout:out", "stderr:err");
        assertThat(adopter.metrics().resumed()).isEqualTo(1);
    }

    @Test
    void cancelReachesAnAdoptedCommand() throws Exception {
        Job job = runOnDoomedWorker("echo run >> " + ledger + "; sleep 60", 1);
        WorkerProcess.kill(worker);
        Skiplock adopter = adopter();
        await().atMost(WAIT).until(() -> adopter.metrics().adopted() == 1);

        adopter.cancel(job.id());
        Job done = awaitTerminal(adopter, job.id());

        assertThat(done.status()).isEqualTo(JobStatus.CANCELLED);
        await().atMost(WAIT).until(() -> !CommandRuns.alive(runDir, job));
        assertThat(Files.readAllLines(ledger)).containsExactly("run");
        // Removed once the terminated wrapper has recorded its exit code too, not before.
        await().atMost(WAIT).until(() -> !Files.exists(runDir.resolve(job.id() + "-1")));
    }

    @Test
    void commandThatVanishedWithItsWorkerIsRetriedAsANewAttempt() throws Exception {
        Job job = runOnDoomedWorker("echo $SKIPLOCK_ATTEMPT >> " + ledger + "; [ $SKIPLOCK_ATTEMPT -gt 1 ] || sleep 60", 2);
        WorkerProcess.kill(worker);
        CommandRuns.killAndDelete(runDir.resolve(job.id() + "-1"));

        Skiplock adopter = adopter();
        Job done = awaitTerminal(adopter, job.id());

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(Files.readAllLines(ledger)).containsExactly("1", "2");
        assertThat(adopter.metrics().resumed()).isZero();
    }

    @Test
    void workerPausedPastItsLeaseLeavesTheCommandToTheAdopter() throws Exception {
        Job job = runOnDoomedWorker("echo run >> " + ledger + "; sleep 4; echo done", 1);
        WorkerProcess.signal(worker.toHandle(), "STOP");
        try {
            Skiplock adopter = adopter();
            await().atMost(WAIT).until(() -> adopter.metrics().adopted() == 1);
            WorkerProcess.signal(worker.toHandle(), "CONT"); // its heartbeat now finds the lease gone

            Job done = awaitTerminal(adopter, job.id());

            assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
            assertThat(done.attempt()).isEqualTo(1);
            assertThat(Files.readAllLines(ledger)).containsExactly("run");
            assertThat(logLines(adopter, job)).containsExactly("stdout:done");
        } finally {
            WorkerProcess.signal(worker.toHandle(), "CONT");
        }
    }

    /** Enqueues {@code sh -c script} and starts a worker process; returns once the command runs there. */
    private Job runOnDoomedWorker(String script, int maxAttempts) throws Exception {
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("command", Map.of("argv", List.of("sh", "-c", script)))
                .withMaxAttempts(maxAttempts));
        worker = WorkerProcess.start(database.url(), runDir, "--concurrency", "1");
        await().atMost(WAIT).until(() -> CommandRuns.alive(runDir, job));
        return job;
    }

    private Skiplock adopter() {
        return started(builder(config -> config.queue("default", 1))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner(runDir)));
    }

    private static List<String> logLines(Skiplock skiplock, Job job) {
        return skiplock.events(job.id(), 0, 1000).stream().filter(event -> event.type().equals("log"))
                .map(event -> event.stream() + ":" + event.message()).toList();
    }

    /** Looks at runs from outside: {@code <runDir>/<job id>-<attempt>/pid}. */
    private static final class CommandRuns {
        static boolean alive(Path runDir, Job job) throws Exception {
            Path pid = runDir.resolve(job.id() + "-1").resolve("pid");
            if (!Files.exists(pid) || Files.readString(pid).isBlank()) {
                return false;
            }
            return ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).map(ProcessHandle::isAlive).orElse(false);
        }

        /** Kills a run's process tree (it outlives workers by design) and removes its files. */
        static void killAndDelete(Path run) throws Exception {
            Path pid = run.resolve("pid");
            if (Files.exists(pid) && !Files.readString(pid).isBlank()) {
                ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(process -> {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    process.onExit().join();
                });
            }
            try (var files = Files.walk(run)) {
                for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }
}
