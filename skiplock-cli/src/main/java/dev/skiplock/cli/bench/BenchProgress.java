package dev.skiplock.cli.bench;

import dev.skiplock.cli.Ticker;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * The benchmark's phases on stderr (stdout carries only the JSON line). In a pipe each phase is one
 * plain line {@code bench: …}, as it always was; on a terminal the current phase is one line rewritten
 * in place with its running time, and it ends with the time the phase took.
 */
final class BenchProgress implements AutoCloseable {
    private static final String ERASE = "\r\033[2K";

    private final PrintStream terminal;
    private Ticker ticker;
    private String phase;
    private long phaseStart;

    private BenchProgress(PrintStream terminal) {
        this.terminal = terminal;
    }

    /** Progress to stderr; redrawn in place when {@code live}. */
    static BenchProgress open(boolean live) {
        BenchProgress progress = new BenchProgress(live ? System.err : null);
        if (live) {
            progress.ticker = Ticker.start("bench-progress", Duration.ofMillis(250), progress::draw);
        }
        return progress;
    }

    synchronized void phase(String message) {
        if (terminal == null) {
            System.err.println("bench: " + message);
            return;
        }
        endPhase();
        phase = message;
        phaseStart = System.nanoTime();
        draw();
    }

    private synchronized void draw() {
        if (phase != null) {
            terminal.print(ERASE + "bench: " + phase + " … " + seconds());
            terminal.flush();
        }
    }

    private void endPhase() {
        if (phase != null) {
            terminal.println(ERASE + "bench: " + phase + " (" + seconds() + ")");
            phase = null;
        }
    }

    private String seconds() {
        return String.format(Locale.ROOT, "%.1fs", (System.nanoTime() - phaseStart) / 1e9);
    }

    @Override
    public synchronized void close() {
        if (terminal != null) {
            ticker.close();
            endPhase();
        }
    }
}
