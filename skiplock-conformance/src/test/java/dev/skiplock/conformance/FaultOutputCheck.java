package dev.skiplock.conformance;

import dev.skiplock.conformance.FaultTables.Event;
import dev.skiplock.conformance.FaultTables.JobRow;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Hostile output (README "Guarantees": one job's data never blocks another's outcome): jobs whose
 * log lines, progress, result or error carry NUL characters, lone surrogates or invalid UTF-8 end
 * as designed (the "no job lost" check), and what was stored of them has U+FFFD in their place:
 * no NUL, no lone surrogate; each attempt's line of each stream stored at most once, and exactly
 * once for an attempt that ran to its outcome.
 */
final class FaultOutputCheck {
    private static final char REPLACEMENT = '\uFFFD';
    private static final Pattern JSON_ESCAPE = Pattern.compile("\\\\u(0000|[dD][89a-fA-F])");

    /** Hostile jobs, their stored log lines, and how many of those carry U+FFFD. */
    record Figures(int jobs, int logLines, int linesWithReplacement) {
    }

    private FaultOutputCheck() {
    }

    static Figures check(Set<String> hostile, FaultAnalysis.History history, List<String> violations) {
        int lines = 0;
        int replaced = 0;
        for (String id : hostile) {
            JobRow job = history.jobs().get(id);
            if (job == null) {
                continue; // reported as a missing job
            }
            Map<String, Integer> perAttemptAndStream = new TreeMap<>();
            for (Event line : history.logs().getOrDefault(id, List.of())) {
                lines++;
                String message = String.valueOf(line.message());
                if (message.indexOf(REPLACEMENT) >= 0) {
                    replaced++;
                } else {
                    violations.add("hostile job " + id + " logged a line without U+FFFD: " + message);
                }
                checkStorable("hostile job " + id + " log line", message, violations);
                perAttemptAndStream.merge(line.attempt() + " " + line.stream(), 1, Integer::sum);
            }
            perAttemptAndStream.forEach((attemptAndStream, count) -> {
                if (count > 1) {
                    violations.add("hostile job " + id + " logged " + count + " lines in attempt and stream "
                            + attemptAndStream + " (one printed)");
                }
            });
            boolean ranToItsOutcome = job.status().equals("succeeded")
                    || job.status().equals("failed") && !String.valueOf(job.lastError()).contains("lease expired");
            for (String stream : List.of("stdout", "stderr")) {
                if (ranToItsOutcome && !perAttemptAndStream.containsKey(job.attempt() + " " + stream)) {
                    violations.add("hostile job " + id + " ended " + job.status() + " in attempt " + job.attempt()
                            + " without its " + stream + " line");
                }
            }
            checkOutcome(job, violations);
        }
        return new Figures(hostile.size(), lines, replaced);
    }

    /** A hostile result or error is stored with U+FFFD in place of what no database stores. */
    private static void checkOutcome(JobRow job, List<String> violations) {
        String stored = switch (job.kind()) {
            case "fault.hostile" -> job.status().equals("succeeded") ? job.result() : null;
            case "fault.hostile.throw" -> job.status().equals("failed")
                    && !String.valueOf(job.lastError()).contains("lease expired") ? job.lastError() : null;
            default -> null; // a command: its output is its log lines
        };
        if (stored != null) {
            if (stored.indexOf(REPLACEMENT) < 0) {
                violations.add("hostile job " + job.id() + " stored its outcome without U+FFFD: " + stored);
            }
            checkStorable("hostile job " + job.id() + " outcome", stored, violations);
        }
    }

    /** Neither a NUL nor a lone surrogate, as characters or as JSON escapes (a result is JSON). */
    private static void checkStorable(String what, String text, List<String> violations) {
        if (JSON_ESCAPE.matcher(text).find()) {
            violations.add(what + " kept an escaped NUL or surrogate: " + text);
            return;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (c == 0 || Character.isSurrogate(c) && !paired && !(i > 0 && Character.isHighSurrogate(text.charAt(i - 1))
                    && Character.isLowSurrogate(c))) {
                violations.add(what + " kept a NUL or a lone surrogate at " + i + ": " + text.replace('\0', '0'));
                return;
            }
        }
    }
}
