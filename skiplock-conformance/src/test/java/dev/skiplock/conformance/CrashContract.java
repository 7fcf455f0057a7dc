package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real worker process is killed (SIGKILL) in the middle of a job; another worker must rescue the
 * job within the bound {@code leaseTtl + reaperInterval + pollInterval} (plus the retry backoff and
 * this machine's scheduling noise), and finish it exactly once.
 */
abstract class CrashContract extends ContractBase {

    @Test
    void jobOfAKilledWorkerProcessIsReapedAdoptedAndRunAgain() throws Exception {
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("work", new LeaseContract.Work("x")).withMaxAttempts(3));
        Process process = startWorkerProcess();
        try {
            String line = awaitLine(process, "started ");
            assertThat(line).isEqualTo("started " + job.id() + " 1");
        } finally {
            process.destroyForcibly(); // SIGKILL: no shutdown hook, no lease release
            process.waitFor(30, TimeUnit.SECONDS);
        }
        long killedAt = System.nanoTime();
        CompletableFuture<Long> rescuedAt = new CompletableFuture<>();
        Skiplock rescuer = started(builder(config -> config.queue("default", 1))
                .handler("work", LeaseContract.Work.class, context -> {
                    rescuedAt.complete(System.nanoTime());
                    return JobOutcome.complete("rescued");
                }));

        Job done = awaitStatus(rescuer, job.id(), JobStatus.SUCCEEDED);
        Duration rescue = Duration.ofNanos(rescuedAt.get(30, TimeUnit.SECONDS) - killedAt);
        SkiplockConfig timings = fastConfig().build();
        System.out.printf("[%s] job of a SIGKILLed worker ran again after %d ms (bound lease+reaper+poll = %d ms)%n",
                database.name(), rescue.toMillis(), timings.rescueBound().toMillis());

        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.result().asText()).isEqualTo("rescued");
        assertThat(done.lastError()).startsWith("worker ").contains("lost during attempt 1 (lease expired)");
        assertThat(rescuer.metrics().adopted()).isEqualTo(1);
        // The bound is a promise: rescue never takes longer than it plus the retry backoff (at most
        // the policy's cap, 200 ms here) and a wide margin for a loaded 2-core machine.
        assertThat(rescue).isLessThan(timings.rescueBound().plusMillis(200).plusSeconds(5));
    }

    private Process startWorkerProcess() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), WorkerMain.class.getName(), database.url());
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    static String awaitLine(Process process, String prefix) throws Exception {
        CompletableFuture<String> found = new CompletableFuture<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith(prefix)) {
                        found.complete(line);
                    }
                }
                found.completeExceptionally(new IllegalStateException("worker process exited before '" + prefix + "'"));
            } catch (Exception e) {
                found.completeExceptionally(e);
            }
        });
        try {
            return found.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            reader.interrupt();
        }
    }
}
