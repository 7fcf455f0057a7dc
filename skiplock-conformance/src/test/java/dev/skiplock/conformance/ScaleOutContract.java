package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobQuery;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two {@code skiplock worker} processes and one serving process share one queue: every job runs
 * exactly once, and more than one process does the work.
 */
abstract class ScaleOutContract extends ContractBase {
    static final int JOBS = 40;

    @Test
    void twoWorkerProcessesAndAServerShareAQueueWithoutRunningAnyJobTwice() throws Exception {
        Skiplock skiplock = started(builder(config -> config.queue("default", 2))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner()));
        Path ledger = Files.createTempFile("skiplock-ledger-", ".txt");
        List<Process> workers = new ArrayList<>();
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1024 * 1024, true, Map.of()))) {
            for (int i = 0; i < 2; i++) {
                workers.add(startWorker());
            }
            await().atMost(WAIT).until(() -> skiplock.workers().stream()
                    .filter(worker -> worker.status().equals("active")).count() == 3);
            Http http = new Http(server.port());
            for (int i = 0; i < JOBS; i++) {
                assertThat(http.post("/api/v1/jobs", "{\"kind\": \"command\", \"args\": {\"argv\": [\"sh\", \"-c\", "
                        + "\"echo $SKIPLOCK_JOB_ID $PPID >> " + ledger + "; sleep 0.1\"]}}").status()).isEqualTo(201);
            }

            await().atMost(Duration.ofMinutes(2)).until(() -> skiplock.list(JobQuery.all()
                    .withStatus(JobStatus.SUCCEEDED).withLimit(JobQuery.MAX_LIMIT)).jobs().size() == JOBS);
        } finally {
            for (Process worker : workers) {
                worker.destroy(); // SIGTERM: graceful shutdown
                worker.waitFor(30, TimeUnit.SECONDS);
            }
        }
        List<String> lines = Files.readAllLines(ledger);
        Set<String> jobs = new HashSet<>();
        Set<String> processes = new HashSet<>();
        lines.forEach(line -> {
            jobs.add(line.split(" ")[0]);
            processes.add(line.split(" ")[1]);
        });
        assertThat(lines).hasSize(JOBS);
        assertThat(jobs).hasSize(JOBS);
        assertThat(processes).hasSizeGreaterThanOrEqualTo(2);
        // A JVM ended by SIGTERM exits 143 after its shutdown hooks ran; the registry shows that
        // each worker closed gracefully (marked stopped by its own shutdown).
        assertThat(workers).allSatisfy(worker -> assertThat(worker.exitValue()).isEqualTo(143));
        assertThat(skiplock.workers().stream().filter(worker -> worker.status().equals("stopped")).count())
                .isEqualTo(2);
        Files.deleteIfExists(ledger);
    }

    private Process startWorker() throws Exception {
        return WorkerProcess.start(database.url(), ProcessBuilder.Redirect.DISCARD, "--concurrency", "2");
    }
}
