package dev.skiplock.conformance;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real {@code skiplock worker} (or {@code serve}) process (the CLI's main class on this test classpath) with the test timings. */
final class WorkerProcess {
    private WorkerProcess() {
    }

    /** Starts {@code skiplock worker} against {@code url}; {@code options} are added to the command line. */
    static Process start(String url, ProcessBuilder.Redirect output, String... options) throws IOException {
        return start(List.of(), url, output, options);
    }

    /** As {@link #start(String, ProcessBuilder.Redirect, String...)}, with extra JVM options first. */
    static Process start(List<String> jvmOptions, String url, ProcessBuilder.Redirect output, String... options)
            throws IOException {
        return start(jvmOptions, "worker", url, output, options);
    }

    /** {@code skiplock <subcommand>} ({@code worker} or {@code serve}) with the test timings. */
    static Process start(List<String> jvmOptions, String subcommand, String url, ProcessBuilder.Redirect output,
            String... options) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-Xmx96m",
                "--enable-native-access=ALL-UNNAMED"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "dev.skiplock.cli.Main", subcommand, "--db", url,
                "--lease", "2s", "--heartbeat", "500ms", "--reaper-interval", "300ms", "--poll-interval", "200ms"));
        command.addAll(List.of(options));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
    }

    static Process start(String url, Path runDir, String... options) throws IOException {
        List<String> all = new ArrayList<>(List.of("--run-dir", runDir.toString()));
        all.addAll(List.of(options));
        return start(url, ProcessBuilder.Redirect.DISCARD, all.toArray(String[]::new));
    }

    /** Sends {@code signal} (e.g. {@code STOP}, {@code CONT}) to the process. */
    static void signal(ProcessHandle process, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL, and wait until it is gone. */
    static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }
}
