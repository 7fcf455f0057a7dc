package dev.skiplock.cli;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Whether this process talks to a person at a terminal (live output) or to a pipe or file (plain output). */
public final class Terminal {
    private Terminal() {
    }

    /** Where stdout and stderr go does not change while the process runs: read once, not per line printed. */
    private static final class Outputs {
        static final boolean STDOUT = isTerminalDevice(Path.of("/proc/self/fd/1")).orElseGet(Terminal::interactive);
        static final boolean STDERR = isTerminalDevice(Path.of("/proc/self/fd/2")).orElseGet(Terminal::interactive);
    }

    /** Whether stdout is a terminal (Linux's {@code /proc/self/fd/1}; where that cannot be read, {@link #interactive}). */
    public static boolean outputToTerminal() {
        return Outputs.STDOUT;
    }

    /** Whether stderr is a terminal (as {@link #outputToTerminal}, of {@code /proc/self/fd/2}). */
    public static boolean errorOutputToTerminal() {
        return Outputs.STDERR;
    }

    /**
     * {@code text} as a terminal may show it: every control character but the tab (C0, DEL and C1,
     * which terminals read as the start of an escape sequence) written as {@code \xNN}. A job's
     * data (a log line, an error, a progress value) is the job's to write: raw, it could clear the
     * screen, set the window's title or the clipboard (OSC 52) of whoever reads it.
     */
    public static String shown(String text) {
        StringBuilder shown = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f);
            if (control && shown == null) {
                shown = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (shown != null) {
                if (control) {
                    shown.append(String.format("\\x%02x", (int) c));
                } else {
                    shown.append(c);
                }
            }
        }
        return shown == null ? text : shown.toString();
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
