package dev.skiplock.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The append-only execution ledger the fault suite's handlers (and command jobs) write: one line
 * per execution start and end, {@code <start|end> <job> <attempt> <pid> <epoch ms>}.
 */
record FaultLedger(List<Entry> entries) {
    record Entry(String event, String jobId, int attempt, long pid, long atMillis) {
        boolean isStart() {
            return event.equals("start");
        }
    }

    static FaultLedger read(Path file) throws IOException {
        return new FaultLedger(Files.readAllLines(file).stream().filter(line -> !line.isBlank()).map(line -> {
            String[] part = line.trim().split(" ");
            return new Entry(part[0], part[1], Integer.parseInt(part[2]), Long.parseLong(part[3]), Long.parseLong(part[4]));
        }).toList());
    }

    /** Each job's entries in time order. */
    Map<String, List<Entry>> byJob() {
        return entries.stream().sorted(Comparator.comparingLong(Entry::atMillis))
                .collect(Collectors.groupingBy(Entry::jobId, Collectors.toList()));
    }

    /** The shell line a command job runs to write its own ledger entries around {@code sleepSeconds} of work. */
    static String commandScript(Path ledger, String sleepSeconds) {
        return commandScript(ledger, "", sleepSeconds);
    }

    /**
     * As {@link #commandScript(Path, String)}, printing first one line on stdout and one on stderr
     * that carry a NUL byte and bytes that are not UTF-8 (each must be stored as U+FFFD).
     */
    static String hostileCommandScript(Path ledger, String sleepSeconds) {
        return commandScript(ledger, "printf 'out: \\000 nul, \\377\\376 not utf-8\\n'; "
                + "printf 'err: \\000 nul, \\300 not utf-8\\n' >&2; ", sleepSeconds);
    }

    private static String commandScript(Path ledger, String output, String sleepSeconds) {
        String entry = " $SKIPLOCK_JOB_ID $SKIPLOCK_ATTEMPT $$ $(date +%s%3N) >> " + ledger;
        return "echo start" + entry + "; " + output + "sleep " + sleepSeconds + "; echo end" + entry;
    }
}
