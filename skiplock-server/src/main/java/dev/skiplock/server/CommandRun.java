package dev.skiplock.server;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * One execution of a command job as the host sees it: a directory named after the job id and the
 * execution id (its deterministic identity, never reused) holding the wrapper's pid, the command's stdout and stderr,
 * and its exit code. The process runs in its own session with no pipe to the worker, so it
 * outlives a worker that dies, and any worker process on the host can find, follow or finish it.
 */
final class CommandRun {
    /**
     * Records its pid, runs the command with output to files, records the exit code. The argv
     * arrives as positional parameters: nothing in it is parsed by the shell, and {@code exec} runs
     * the program its first names, never the shell's builtin of that name (dash's {@code echo}
     * reads backslashes in its arguments).
     *
     * <p>Each output stream reaches its file through a pipe and a keeper that stores its first
     * {@code $max} bytes, then marks the stream cut ({@code stdout.cut}) and reads the rest away, so
     * a command that prints without end fills neither the host's disk nor the job's log, and runs on
     * (a full pipe would block it; a closed one would kill it). {@code head} writes what it reads at
     * once only with its output unbuffered ({@code stdbuf -o0}): buffered, the log would lag by 4 KiB
     * and a worker's death would lose the lag from the file an adopter resumes. The keepers' tools
     * are found on the host's own PATH, not the job's ({@code head} runs with an empty environment).
     * The shell exits with the command's code, which the runner takes when the exit file could not
     * be written (a full disk).
     *
     * <p>Signals: SIGTERM, SIGINT and SIGHUP are ignored from the start, so {@code mkfifo} and the
     * keepers (which inherit the ignore) cannot be killed by the session's SIGTERM however early it
     * comes, and a terminated command's last lines are still kept. Before the command starts they
     * are trapped instead, which gives the command the default handlers back and keeps this shell
     * alive through the SIGTERM, so a terminated command's code (143) is still recorded. The keepers
     * end when every writer of their pipe has (what the command left running in its session is
     * ended by the runner once the exit code is recorded), and the shell exits after them: its exit
     * means the files are whole. {@code wait} is repeated since a trapped signal ends it early.
     * A SIGTERM that comes while the keepers start (the first milliseconds of a run) is lost: the
     * group's SIGKILL after the grace ends the command then.
     */
    private static final String WRAPPER = """
            dir=$1; max=$2; shift 2
            echo $$ > "$dir/pid"
            trap '' TERM INT HUP
            keep() {
                PATH=/usr/bin:/bin
                env -i PATH=/usr/bin:/bin stdbuf -o0 head -c "$max" > "$dir/$1"
                if [ $(head -c 1 | wc -c) -gt 0 ]; then
                    : > "$dir/$1.cut"
                    cat > /dev/null
                fi
            }
            if ! PATH=/usr/bin:/bin mkfifo -m 600 "$dir/stdout.pipe" "$dir/stderr.pipe" 2> "$dir/stderr"; then
                echo 127 > "$dir/exit"
                exit 127
            fi
            ( keep stdout ) < "$dir/stdout.pipe" &
            ( keep stderr ) < "$dir/stderr.pipe" &
            trap : TERM INT HUP
            ( exec "$@" ) > "$dir/stdout.pipe" 2> "$dir/stderr.pipe" < /dev/null
            code=$?
            echo $code > "$dir/exit"
            until wait; do :; done
            exit $code
            """;
    /** Marks the wrapper's command line, together with the run directory, so a reused pid is never mistaken for it. */
    private static final String NAME = "skiplock-run";
    /** The most read of a pid or exit file: a number and its newline are far shorter. */
    private static final int MAX_NUMBER_FILE_BYTES = 32;

    private final Path dir;

    private CommandRun(Path dir) {
        this.dir = dir;
    }

    /** The run of one execution: named after the job and the execution's id (the claim token), never reused. */
    static CommandRun of(Path root, UUID jobId, UUID executionId) {
        return new CommandRun(root.resolve(jobId + "-" + executionId));
    }

    Path stdout() {
        return dir.resolve("stdout");
    }

    Path stderr() {
        return dir.resolve("stderr");
    }

    /** What the run kept of {@code stream}: its file's size (0 before it exists). */
    long kept(String stream) {
        try {
            return Files.size(dir.resolve(stream));
        } catch (IOException e) {
            return 0;
        }
    }

    /** Whether the command printed more than the run keeps on {@code stream} ({@link #WRAPPER}). */
    boolean cut(String stream) {
        return Files.exists(dir.resolve(stream + ".cut"), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** The command's step files ({@link StepFiles}). */
    Path steps() {
        return dir.resolve("steps");
    }

    /** What is written into a fresh run directory before its command starts. */
    @FunctionalInterface
    interface Preparation {
        void run() throws IOException, InterruptedException;
    }

    /**
     * Starts the command in a new session, keeping at most {@code maxOutputBytes} of each output
     * stream; traces of an earlier run of this attempt are removed first, then {@code prepare}
     * fills the fresh directory.
     */
    Process start(List<String> argv, Map<String, String> environment, File cwd, long maxOutputBytes, Preparation prepare)
            throws IOException, InterruptedException {
        HostTools.requireStdbuf();
        delete();
        Files.createDirectories(dir.getParent());
        Files.createDirectory(dir, RunDirectory.OWNER_ONLY); // its files are its user's alone
        prepare.run();
        List<String> command = new ArrayList<>(List.of(HostTools.SETSID, HostTools.SH, "-c", WRAPPER, NAME, dir.toString(),
                Long.toString(maxOutputBytes)));
        command.addAll(argv);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().clear();
        builder.environment().putAll(environment);
        if (cwd != null) {
            builder.directory(cwd);
        }
        return builder.start();
    }

    /** The wrapper process of this run, if it is still alive (same pid and same command line). */
    Optional<ProcessHandle> process() {
        Optional<String> pid = read("pid");
        if (pid.isEmpty()) {
            return Optional.empty();
        }
        try {
            return ProcessHandle.of(Long.parseLong(pid.get()))
                    .filter(ProcessHandle::isAlive)
                    .filter(handle -> handle.info().arguments()
                            .map(arguments -> List.of(arguments).contains(dir.toString()))
                            .orElse(false));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The process group of a run whose wrapper is gone (its id: the pid the wrapper recorded). A
     * process holding that pid now is the wrapper's own zombie (nobody reaped it yet) if it started
     * before the pid was recorded; one that took the pid after the wrapper exited is another's, and
     * our group is then empty, since a pid is not given to a new process while a group of that id
     * has a member. A start time is read off the boot time in whole seconds, so up to a second
     * early: a run shorter than that cannot tell the two apart, and its group is left alone.
     */
    Optional<ProcessGroup> groupLeftBehind() {
        try {
            Optional<Long> pid = read("pid").map(Long::parseLong);
            if (pid.isEmpty()) {
                return Optional.empty();
            }
            Optional<ProcessHandle> holder = ProcessHandle.of(pid.get());
            if (holder.isEmpty()) {
                return Optional.of(new ProcessGroup(pid.get()));
            }
            java.time.Instant recorded = Files.getLastModifiedTime(dir.resolve("pid")).toInstant();
            Path exit = dir.resolve("exit");
            boolean told = !Files.exists(exit) || Files.getLastModifiedTime(exit).toInstant()
                    .isAfter(recorded.plusSeconds(1)); // a foreign holder's start cannot pass for the wrapper's
            boolean ownZombie = told && holder.get().info().startInstant()
                    .map(started -> !started.isAfter(recorded)).orElse(false); // unknown: not ours to signal
            return ownZombie ? Optional.of(new ProcessGroup(pid.get())) : Optional.empty();
        } catch (NumberFormatException | NoSuchFileException e) {
            return Optional.empty(); // cut short while being written, or gone
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether the wrapper has recorded the exit code: looked at without opening the file, so a
     * FIFO the command put in its place cannot block the caller.
     */
    boolean exitRecorded() {
        try {
            var attributes = Files.readAttributes(dir.resolve("exit"), java.nio.file.attribute.BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
            return attributes.isRegularFile() && attributes.size() > 0;
        } catch (IOException e) {
            return false; // not there (yet), or gone with the run
        }
    }

    /** The command's exit code, once the wrapper recorded it. */
    OptionalInt exitCode() {
        Optional<String> code = read("exit");
        try {
            return code.isEmpty() ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(code.get()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty(); // cut short while being written: the code is unknown
        }
    }

    /**
     * Removes the run once its process is gone: a cancelled or timed-out command's outcome can be
     * durable while its wrapper is still recording the exit code of the terminated command.
     */
    void deleteWhenExited() {
        process().ifPresentOrElse(running -> running.onExit().thenRun(this::delete), this::delete);
    }

    void delete() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir, e);
        }
    }

    private Optional<String> read(String name) {
        // A pid or an exit code: a few bytes, so no more are read (the command can reach this
        // directory, and a file it made huge would take the worker's heap). Only a regular file is
        // opened: opening a FIFO the command made in its place would block until it wrote. (A
        // process of the command's that outlives it could still swap one in between the look and
        // the open; the runner's look while the command runs does not open the file at all.)
        if (!Files.isRegularFile(dir.resolve(name), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try (java.io.InputStream in = Files.newInputStream(dir.resolve(name), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            String text = new String(in.readNBytes(MAX_NUMBER_FILE_BYTES), java.nio.charset.StandardCharsets.UTF_8).trim();
            return text.isEmpty() ? Optional.empty() : Optional.of(text);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
