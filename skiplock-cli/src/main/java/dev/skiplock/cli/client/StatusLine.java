package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobStatus;
import dev.skiplock.cli.Durations;
import dev.skiplock.cli.Ticker;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The live line under a followed job's output on a terminal ({@code submit --wait}, {@code logs -f}):
 * status, attempt, time in that status (for a finished job: in the status before), last progress. It is drawn on stderr, erased before each
 * event's output and drawn again after it, and redrawn every second so the time moves; when the
 * follow ends it stays as the last line. A plain line ({@link #plain()}, for pipes) only prints.
 */
final class StatusLine implements AutoCloseable {
    private static final String ERASE = "\r\033[2K";
    private static final int PROGRESS_WIDTH = 40;

    private final PrintStream terminal;
    private Ticker ticker;
    private String status = "waiting for events";
    private int attempt;
    private Instant since = Instant.now();
    private Duration took;
    private String progress;

    private StatusLine(PrintStream terminal) {
        this.terminal = terminal;
    }

    static StatusLine plain() {
        return new StatusLine(null);
    }

    /** A line drawn on {@code terminal}, redrawn every second by a daemon thread until {@link #close()}. */
    static StatusLine live(PrintStream terminal) {
        StatusLine line = new StatusLine(terminal);
        line.ticker = Ticker.start("skiplock-status-line", Duration.ofSeconds(1), line::draw);
        return line;
    }

    /** Runs {@code print} (the event's output, if shown) above the line, then takes the event into the line. */
    synchronized void show(JsonNode event, Runnable print) {
        if (terminal == null) {
            print.run();
            return;
        }
        terminal.print(ERASE);
        terminal.flush();
        print.run();
        take(event);
        draw();
    }

    private void take(JsonNode event) {
        attempt = event.path("attempt").asInt(attempt);
        switch (event.path("type").asText()) {
            case "status" -> {
                Instant at = timestamp(event.path("ts").asText());
                status = event.path("status").asText();
                // A finished job shows how long its last status lasted (the run), not the time since it ended.
                took = JobStatus.fromWireName(status).isTerminal() ? Duration.between(since, at) : null;
                since = at;
            }
            case "progress" -> progress = compact(event.path("data"));
            default -> { }
        }
    }

    /** {@code running · attempt 2 · 1m05s · progress {"done":3}}; attempt 0 (never claimed) and no progress are left out. */
    static String render(String status, int attempt, Duration elapsed, String progress) {
        StringBuilder line = new StringBuilder(status);
        if (attempt > 0) {
            line.append(" · attempt ").append(attempt);
        }
        line.append(" · ").append(Durations.format(elapsed));
        if (progress != null) {
            line.append(" · progress ").append(progress);
        }
        return line.toString();
    }

    private synchronized void draw() {
        terminal.print(ERASE + render(status, attempt, took != null ? took : Duration.between(since, Instant.now()), progress));
        terminal.flush();
    }

    private static Instant timestamp(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return Instant.now();
        }
    }

    private static String compact(JsonNode data) {
        // drawn on a terminal only: a progress value is the job's to write (see Terminal.shown)
        String text = dev.skiplock.cli.Terminal.shown(data.isValueNode() ? data.asText() : data.toString());
        return text.length() <= PROGRESS_WIDTH ? text : text.substring(0, PROGRESS_WIDTH - 1) + "…";
    }

    /** Stops the redraws; the last state stays on screen as a finished line. */
    @Override
    public void close() {
        if (terminal == null) {
            return;
        }
        ticker.close();
        synchronized (this) {
            draw();
            terminal.println();
        }
    }
}
