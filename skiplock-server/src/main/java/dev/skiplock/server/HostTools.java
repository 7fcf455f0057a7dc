package dev.skiplock.server;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The host programs the command runner relies on, and argv[0] lookup the way the shell will do it. */
final class HostTools {
    static final String SH = firstExecutable(List.of("/bin/sh", "/usr/bin/sh"));
    static final String SETSID = firstExecutable(List.of("/usr/bin/setsid", "/bin/setsid"));

    private HostTools() {
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
