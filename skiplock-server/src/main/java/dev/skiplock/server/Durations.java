package dev.skiplock.server;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one spelling of a duration in the API and on the command line: {@code 500ms}, {@code 30s},
 * {@code 5m}, {@code 2h}, {@code 7d}; a bare number is seconds. Public for the CLI, which parses its
 * options with it.
 */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)?");

    private Durations() {
    }

    /** Parses {@code text}, or throws an {@link IllegalArgumentException} naming {@code field}. */
    public static Duration parse(String field, String text) {
        Matcher matcher = FORMAT.matcher(text == null ? "" : text.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(field + ": expected a duration like 500ms, 30s, 5m, 2h or 7d, got '"
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
}
