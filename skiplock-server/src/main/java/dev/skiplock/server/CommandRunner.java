package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The built-in {@code command} kind: runs the stored argv (no shell) with the job's env and cwd.
 * stdout and stderr lines become {@code log} events; exit code 0 succeeds, anything else fails
 * with the code in {@code lastError}. When the engine interrupts the handler (timeout, cancel,
 * lost lease, shutdown) the process tree gets SIGTERM, then SIGKILL after the grace period.
 */
final class CommandRunner implements JobHandler<JsonNode> {
    /** Variables passed through from the server's environment; everything else comes from the job. */
    private static final List<String> INHERITED = List.of("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR");

    private final Duration grace;

    CommandRunner(Duration grace) {
        this.grace = grace;
    }

    @Override
    public JobOutcome handle(JobContext<JsonNode> context) throws Exception {
        JsonNode args = context.args();
        List<String> argv = new ArrayList<>();
        args.path("argv").forEach(part -> argv.add(part.asText()));
        if (argv.isEmpty()) {
            return JobOutcome.cancel("args.argv is empty; nothing to run");
        }
        Process process = start(context, argv, args);
        Thread stdout = Thread.ofVirtual().start(() -> pump(process.getInputStream(), "stdout", context));
        Thread stderr = Thread.ofVirtual().start(() -> pump(process.getErrorStream(), "stderr", context));
        int exit;
        try {
            exit = process.waitFor();
            stdout.join();
            stderr.join();
        } catch (InterruptedException e) {
            terminate(process);
            throw e;
        }
        if (exit == 0) {
            return JobOutcome.complete(Map.of("exitCode", 0));
        }
        return JobOutcome.fail("exit code " + exit);
    }

    private static Process start(JobContext<JsonNode> context, List<String> argv, JsonNode args) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(argv);
        Map<String, String> environment = builder.environment();
        Map<String, String> inherited = Map.copyOf(environment);
        environment.clear();
        INHERITED.forEach(name -> {
            if (inherited.containsKey(name)) {
                environment.put(name, inherited.get(name));
            }
        });
        args.path("env").fields().forEachRemaining(entry -> environment.put(entry.getKey(), entry.getValue().asText()));
        environment.put("SKIPLOCK_JOB_ID", context.job().id().toString());
        environment.put("SKIPLOCK_ATTEMPT", Integer.toString(context.attempt()));
        if (args.hasNonNull("cwd")) {
            builder.directory(new File(args.get("cwd").asText()));
        }
        builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        try {
            return builder.start();
        } catch (IOException e) {
            throw new IOException("cannot start " + argv.getFirst() + ": " + e.getMessage(), e);
        }
    }

    private static void pump(InputStream stream, String name, JobContext<JsonNode> context) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                context.log(name, line);
            }
        } catch (IOException e) {
            // The process was killed while we read: its remaining output is gone.
        }
    }

    /** SIGTERM to the process and its descendants, then SIGKILL to whatever outlives the grace period. */
    private void terminate(Process process) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                tree.forEach(ProcessHandle::destroyForcibly);
            }
        } catch (InterruptedException e) {
            tree.forEach(ProcessHandle::destroyForcibly);
            Thread.currentThread().interrupt();
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
}
