package dev.skiplock.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Whether a command's process group is alive, as the runner's end of it waits for: a zombie takes a
 * signal as a live process does, and where the worker's JVM is PID 1 (a container without an init)
 * the orphans it is handed are never reaped. Here a parent that never reaps (it {@code exec}s
 * {@code sleep}) stands in for that JVM.
 */
class ProcessGroupTest {
    private Process parent;
    /** A session leader {@code setsid} may have forked away from {@link #parent}. */
    private long leader;

    @AfterEach
    void endParent() {
        if (parent != null) {
            parent.destroyForcibly(); // its zombie child goes with it
        }
        if (leader > 0) {
            ProcessHandle.of(leader).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Before, the signal alone decided: such a group was alive until its zombies were reaped. */
    @Test
    void aGroupOfZombiesAloneIsNotAlive() throws Exception {
        // the child leaves for a session of its own (its pid the group's id) and exits unreaped
        long member = start("setsid sh -c \"$CHILD\" & exec sleep 60");
        awaitZombie(member);

        assertThat(new ProcessGroup(member).alive()).isFalse();
    }

    @Test
    void aGroupWithALiveMemberBesideItsZombiesIsAlive() throws Exception {
        // the session's leader (the group's id) becomes a sleep that never reaps its exited child
        long zombie = start("setsid sh -c 'sh -c \"$CHILD\" & exec sleep 60'");
        awaitZombie(zombie);
        leader = Long.parseLong(stat(zombie)[2]);

        assertThat(stat(leader)[0]).isNotEqualTo("Z");
        assertThat(new ProcessGroup(leader).alive()).isTrue();
    }

    /**
     * Starts {@code script} as the never-reaping parent; returns the pid its first line names. Its
     * {@code $CHILD} prints its pid and exits once its parent has become {@code sleep}: a shell
     * parent (bash) would reap it.
     */
    private long start(String script) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(HostTools.SH, "-c", script).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("CHILD",
                "until [ \"$(cat /proc/$PPID/comm)\" = sleep ]; do sleep 0.01; done; echo $$; exit 0");
        parent = builder.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
        return Long.parseLong(out.readLine().trim());
    }

    private static void awaitZombie(long pid) {
        await().atMost(Duration.ofSeconds(30)).until(() -> stat(pid)[0].equals("Z"));
    }

    /** "state ppid pgrp ..." of /proc/PID/stat. */
    private static String[] stat(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }
}
