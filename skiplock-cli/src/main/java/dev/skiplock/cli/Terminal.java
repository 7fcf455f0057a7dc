package dev.skiplock.cli;

import java.io.Console;

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
