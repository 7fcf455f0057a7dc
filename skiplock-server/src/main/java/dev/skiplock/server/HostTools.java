package dev.skiplock.server;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The host programs the command runner relies on, and argv[0] lookup the way the shell will do it. */
final class HostTools {
    static final String SH = firstExecutable(List.of("/bin/sh", "/usr/bin/sh"));
    static final String SETSID = firstExecutable(List.of("/usr/bin/setsid", "/bin/setsid"));
    /** Found where the wrapper's keepers look ({@code PATH=/usr/bin:/bin}, {@link CommandRun}). */
    static final String STDBUF = firstExecutable(List.of("/usr/bin/stdbuf", "/bin/stdbuf"));

    /** Why {@link #STDBUF} cannot keep a run's output, empty if it can; null until looked at. */
    private static String stdbufProblem;

    private HostTools() {
    }

    /**
     * Refuses to start a run on a host whose {@code stdbuf} is missing or does not run (it needs
     * its preload library): the run's keepers would otherwise store nothing. Looked at once.
     */
    static synchronized void requireStdbuf() throws IOException, InterruptedException {
        if (stdbufProblem == null) {
            stdbufProblem = stdbufProblem();
        }
        if (!stdbufProblem.isEmpty()) {
            throw new IOException(stdbufProblem);
        }
    }

    private static String stdbufProblem() throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(STDBUF))) {
            return "this host has no " + STDBUF + " (GNU coreutils), which keeps a run's output";
        }
        ProcessBuilder probe = new ProcessBuilder(STDBUF, "-o0", "true").redirectErrorStream(true);
        probe.environment().put("PATH", "/usr/bin:/bin");
        Process process = probe.start();
        String output = new String(process.getInputStream().readNBytes(1000), java.nio.charset.StandardCharsets.UTF_8);
        return process.waitFor() == 0 ? ""
                : STDBUF + ", which keeps a run's output, does not run on this host: " + output.strip();
    }

    /**
     * Finds the program the shell would run for {@code name} (a path, or a name searched on
     * {@code path}): checked before starting so a typo fails with a clear message, not exit 127.
     */
    static Optional<Path> find(String name, String path, File cwd) {
        if (name.contains("/")) {
            Path program = cwd == null ? Path.of(name) : cwd.toPath().resolve(name);
            return Files.isExecutable(program) && !Files.isDirectory(program) ? Optional.of(program) : Optional.empty();
        }
        for (String directory : (path == null ? "" : path).split(":")) {
            if (directory.isEmpty()) {
                continue;
            }
            Path program = Path.of(directory, name);
            if (Files.isExecutable(program) && !Files.isDirectory(program)) {
                return Optional.of(program);
            }
        }
        return Optional.empty();
    }

    private static String firstExecutable(List<String> candidates) {
        return candidates.stream().filter(candidate -> Files.isExecutable(Path.of(candidate))).findFirst()
                .orElse(candidates.getFirst()); // starting it fails later with a message naming it
    }
}
