package dev.skiplock.server;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The process group of a command run: its wrapper leads a session of its own ({@code setsid}), so
 * the group's id is the wrapper's pid, and every process the command starts is in it unless it
 * leaves on purpose, also one whose parent exited ({@code (sleep 300 &)}), which a walk of the
 * wrapper's descendants does not find. Signalled through {@code kill(1)}: Java signals one process
 * at a time. A group's id is not given to a new process while the group has a member; a signal
 * sent after its last member exited reaches nothing, unless the host's pids wrapped around between
 * the two and the new holder of the id leads a group of its own.
 */
final class ProcessGroup {
    private static final long POLL_MILLIS = 50;

    private final long id;

    ProcessGroup(long id) {
        this.id = id;
    }

    /** Whether any process of the group is alive. */
    boolean alive() throws InterruptedException {
        return kill("-0");
    }

    /**
     * SIGTERM to every process of the group, then SIGKILL to the group if any is left after
     * {@code grace}; returns once it is empty or killed.
     */
    void end(Duration grace) throws InterruptedException {
        if (!kill("-s", "TERM")) {
            return; // nobody left
        }
        long deadline = System.nanoTime() + grace.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!alive()) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS); // pacing the look at a group that may ignore SIGTERM
        }
        kill("-s", "KILL");
    }

    /** SIGKILL to the group, not waiting for {@code kill(1)} (for a thread that was interrupted). */
    void killAtOnce() {
        start("-s", "KILL");
    }

    /** {@code kill SIGNAL -- -ID}: true if a process of the group was there to take it. */
    private boolean kill(String... signal) throws InterruptedException {
        return start(signal).waitFor() == 0;
    }

    private Process start(String... signal) {
        String[] command = new String[signal.length + 3];
        command[0] = HostTools.KILL;
        System.arraycopy(signal, 0, command, 1, signal.length);
        command[signal.length + 1] = "--";
        command[signal.length + 2] = "-" + id;
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot run " + HostTools.KILL, e);
        }
    }
}
