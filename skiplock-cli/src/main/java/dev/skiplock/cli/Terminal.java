package dev.skiplock.cli;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Whether this process talks to a person at a terminal (live output) or to a pipe or file (plain output). */
final class Terminal {
    private Terminal() {
    }

    /**
     * True when stdin and stdout are a terminal that understands cursor control. Since JDK 22
     * {@link System#console()} may return a console for redirected streams too, so
     * {@code Console.isTerminal()} (22+) decides where it exists; it is called reflectively
     * because the code is compiled for Java 21, where a non-null console already means a terminal.
     */
    /**
     * Whether stderr, where the live status line and the bench's progress are drawn, is a terminal
     * too: {@link #interactive} looks at stdin and stdout only, so {@code submit --wait 2>err.log}
     * filled the file with redraws. Read off {@code /proc/self/fd/2} (Linux); where that cannot be
     * read, stderr is taken to go where stdout goes.
     */
    static boolean errorsToTerminal() {
        return isTerminalDevice(Path.of("/proc/self/fd/2")).orElse(true);
    }

    /** Whether the file descriptor link {@code fd} points at a terminal; empty when it cannot be read. */
    static Optional<Boolean> isTerminalDevice(Path fd) {
        try {
            String target = Files.readSymbolicLink(fd).toString();
            return Optional.of(target.startsWith("/dev/pts/") || target.startsWith("/dev/tty")
                    || target.equals("/dev/console"));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    static boolean interactive() {
        Console console = System.console();
        if (console == null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }
}
