package dev.skiplock.server;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The process group of a command run: its wrapper leads a session of its own ({@code setsid}), so
 * the group's id is the wrapper's pid, and every process the command starts is in it unless it
 * leaves on purpose, also one whose parent exited ({@code (sleep 300 &)}), which a walk of the
 * wrapper's descendants does not find. Signalled through the shell's {@code kill} (Java signals
 * one process at a time; the shell is there wherever commands run, a {@code kill} program not
 * always: procps is not in every image). A group's id is not given to a new process while the group has a member; a signal
 * sent after its last member exited reaches nothing, unless the host's pids wrapped around between
 * the two and the new holder of the id leads a group of its own.
 */
final class ProcessGroup {
    private static final long POLL_MILLIS = 50;

    private final long id;

    ProcessGroup(long id) {
        this.id = id;
    }

    /**
     * Whether {@code process} is in this group, as Linux's {@code /proc/PID/stat} says (its fifth
     * field); false when that cannot be read (the process gone, or no {@code /proc}).
     */
    boolean holds(ProcessHandle process) {
        try {
            String[] fields = statFields(Path.of("/proc", Long.toString(process.pid())));
            return fields != null && Long.parseLong(fields[2]) == id;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether any process of the group is alive. A zombie takes a signal as a live process does,
     * and where the worker's JVM is PID 1 (a container without an init) the command's orphans,
     * handed to it, stay zombies: a group of them alone is not alive (as {@code /proc} says; with
     * no {@code /proc}, the signal decides).
     */
    boolean alive() throws InterruptedException {
        return kill("0") && !onlyZombies();
    }

    /**
     * Whether {@code /proc} lists members of the group and every one of them is a zombie: state Z
     * with one thread (a process whose main thread exited while others run shows Z too). A member
     * whose state cannot be read counts as alive.
     */
    private boolean onlyZombies() {
        boolean zombies = false;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(
                Path.of("/proc"), entry -> entry.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path process : processes) {
                String[] fields = statFields(process);
                if (fields == null || Long.parseLong(fields[2]) != id) {
                    continue;
                }
                if (!fields[0].equals("Z") || !fields[17].equals("1")) {
                    return false;
                }
                zombies = true;
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return zombies;
    }

    /**
     * The fields of {@code /proc/PID/stat} after the command name ("state ppid pgrp ...",
     * {@code num_threads} at index 17); null if the process is gone. The name may hold spaces and
     * parentheses, so the fields start after its last ')'.
     */
    private static String[] statFields(Path process) throws IOException {
        try {
            String stat = Files.readString(process.resolve("stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    /**
     * SIGTERM to every process of the group, then SIGKILL to the group if any is left after
     * {@code grace}; returns once it is empty or killed.
     */
    void end(Duration grace) throws InterruptedException {
        if (!kill("TERM")) {
            return; // nobody left
        }
        long deadline = System.nanoTime() + grace.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!alive()) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS); // pacing the look at a group that may ignore SIGTERM
        }
        kill("KILL");
    }

    /** SIGKILL to the group, not waiting for the shell (for a thread that was interrupted). */
    void killAtOnce() {
        try {
            start("KILL");
        } catch (java.io.UncheckedIOException e) {
            // best effort on the way out: the caller kills the processes it knows of next
        }
    }

    /** {@code kill -SIGNAL -ID}: true if a process of the group was there to take it. */
    private boolean kill(String signal) throws InterruptedException {
        return start(signal).waitFor() == 0;
    }

    /** The shell's {@code kill -SIGNAL -ID} (the form dash and bash both take: dash reads {@code -s} and {@code --} otherwise). */
    private Process start(String signal) {
        try {
            return new ProcessBuilder(HostTools.SH, "-c", "kill -\"$1\" -\"$2\"", "kill", signal, Long.toString(id))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot run " + HostTools.SH, e);
        }
    }
}
