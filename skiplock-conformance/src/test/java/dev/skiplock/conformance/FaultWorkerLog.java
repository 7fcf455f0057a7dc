package dev.skiplock.conformance;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a worker's log says around an instant, for a violation that the database's events alone do
 * not explain (a claimed job neither run nor given back: was the worker stalled, cut off, failing?).
 * Lines start with {@code HH:mm:ss.SSS} in this JVM's zone (logback-faults.xml; the workers share it).
 */
final class FaultWorkerLog {
    /** Shown before the instant: what the worker was doing when it claimed. */
    private static final Duration BEFORE = Duration.ofSeconds(1);
    /** Shown after the instant: the lease (2 s) and a reaper's round after it. */
    private static final Duration AFTER = Duration.ofSeconds(3);
    private static final int MAX_LINES = 40;
    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

    private FaultWorkerLog() {
    }

    /** The log's first line, then its lines near {@code atMillis} or naming {@code jobId} (at most {@link #MAX_LINES}). */
    static String around(List<String> log, String jobId, long atMillis) {
        if (log.isEmpty()) {
            return "its log is empty";
        }
        long at = Instant.ofEpochMilli(atMillis).atZone(ZoneId.systemDefault()).toLocalTime().toNanoOfDay() / 1_000_000;
        List<String> shown = new ArrayList<>();
        for (String line : log) {
            Long millisOfDay = millisOfDayOf(line);
            // the log carries no date: a line from just before midnight is near an instant just after it
            long after = millisOfDay == null ? Long.MAX_VALUE : Math.floorMod(millisOfDay - at + DAY_MILLIS / 2, DAY_MILLIS)
                    - DAY_MILLIS / 2;
            boolean near = after >= -BEFORE.toMillis() && after <= AFTER.toMillis();
            if ((near || line.contains(jobId)) && shown.size() < MAX_LINES) {
                shown.add(line);
            }
        }
        return "its first log line: " + log.get(0) + "; its lines from " + BEFORE.toMillis() + " ms before the answer to "
                + AFTER.toMillis() + " ms after it, or naming the job: " + shown;
    }

    private static Long millisOfDayOf(String line) {
        if (line.length() < 12) {
            return null;
        }
        try {
            return LocalTime.parse(line.substring(0, 12)).toNanoOfDay() / 1_000_000;
        } catch (DateTimeParseException e) {
            return null; // a continuation line (a stack trace) carries no time
        }
    }
}
