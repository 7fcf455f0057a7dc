package dev.skiplock.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d} (a bare number is seconds), and
 * formats an age or elapsed time for people ({@code 42s}, {@code 3m05s}, {@code 2h07m}, {@code 3d04h}).
 */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)?");

    private Durations() {
    }

    public static Duration parse(String option, String text) {
        Matcher matcher = FORMAT.matcher(text == null ? "" : text.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(option + ": expected a duration like 500ms, 30s, 5m, 2h or 7d, got '"
                    + text + "'");
        }
        long amount = Long.parseLong(matcher.group(1));
        String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
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
