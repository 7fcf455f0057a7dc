package dev.skiplock.cli;

import java.time.Duration;

/**
 * Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d} (a bare number is seconds), and
 * formats an age or elapsed time for people ({@code 42s}, {@code 3m05s}, {@code 2h07m}, {@code 3d04h}).
 */
public final class Durations {
    private Durations() {
    }

    /** The service's rule ({@link dev.skiplock.server.Durations#parse}): one spelling for options and the API. */
    public static Duration parse(String option, String text) {
        return dev.skiplock.server.Durations.parse(option, text);
    }

    /** A short human form, to the second; negative durations (clock skew) show as {@code 0s}. */
    public static String format(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format("%dm%02ds", seconds / 60, seconds % 60);
        }
        if (seconds < 86_400) {
            return String.format("%dh%02dm", seconds / 3600, seconds % 3600 / 60);
        }
        return String.format("%dd%02dh", seconds / 86_400, seconds % 86_400 / 3600);
    }
}
