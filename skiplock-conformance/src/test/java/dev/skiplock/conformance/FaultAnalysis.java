package dev.skiplock.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a fault run's invariants from the database (jobs and their status events) and the
 * execution ledger, and measures what the closing report needs.
 */
final class FaultAnalysis {
    static final Set<String> TERMINAL = Set.of("succeeded", "failed", "timed_out", "cancelled");
    static final Set<String> HEALTHY = Set.of("fault.work", "command");
    /**
     * What a rescue may take on top of lease + reaper + poll + backoff: a loaded 2-core machine
     * running several JVMs and a database. A job stuck beyond this is a bug, not noise.
     */
    static final Duration SLACK = Duration.ofSeconds(8);
    /** The worker processes' timings (WorkerProcess): the rescue bound lease + reaper + poll. */
    static final Duration LEASE_REAPER_POLL = Duration.ofMillis(2000 + 300 + 200);

    /** The cause of a re-execution when the first execution's worker was SIGSTOPped past its lease. */
    static final String PAUSED = "worker SIGSTOPped past its lease";

    record JobRow(String id, String kind, String status, int attempt, int maxAttempts, String lastError) {
    }

    record StatusEvent(String jobId, long seq, int attempt, String status, String message, long atMillis) {
        /** The adopter found this attempt's worker gone and put the job back in play. */
        boolean isRescueOf(int lostAttempt) {
            return status.equals("queued") && attempt == lostAttempt && String.valueOf(message).contains("lease expired");
        }
    }

    /** What the run showed; {@code violations} must be empty. */
    record Report(String database, String form, int jobs, int workersStarted, int killed, int paused, int exited,
            int startsFailed, int databaseRestarts, long maxDatabaseDowntimeMillis, int lost, int doubleFinalized, int overMaxAttempts,
            Map<String, Integer> duplicateExecutions, long maxRescueMillis, Map<String, Long> maxRescueMillisByCause, int staleFinalizationsRejected,
            int leasesLost, int commandsResumed, int commandsGone, List<String> violations) {
    }

    private final List<String> violations = new ArrayList<>();

    Report analyse(String database, FaultPlan plan, List<JobRow> jobs, List<StatusEvent> events, FaultLedger ledger,
            List<FaultRun.Fault> faults, int workersStarted, List<String> workerLog) {
        Map<String, List<StatusEvent>> eventsByJob = new HashMap<>();
        events.forEach(event -> eventsByJob.computeIfAbsent(event.jobId(), id -> new ArrayList<>()).add(event));
        Map<String, List<FaultLedger.Entry>> executions = ledger.byJob();
        Map<String, String> kindOf = new HashMap<>();
        jobs.forEach(job -> kindOf.put(job.id(), job.kind()));
        Map<Long, Long> haltedAt = haltTimes(ledger, kindOf);

        int lost = 0;
        int doubleFinalized = 0;
        int overMax = 0;
        Map<String, Integer> duplicates = new TreeMap<>();
        long maxRescue = 0;
        Map<String, Long> maxRescueByCause = new TreeMap<>();
        if (jobs.size() != plan.jobs()) {
            violations.add("expected " + plan.jobs() + " jobs in the table, found " + jobs.size());
        }
        for (JobRow job : jobs) {
            List<StatusEvent> history = eventsByJob.getOrDefault(job.id(), List.of());
            List<FaultLedger.Entry> runs = executions.getOrDefault(job.id(), List.of());
            if (!TERMINAL.contains(job.status())) {
                lost++;
                violations.add("job " + job.id() + " (" + job.kind() + ") is still " + job.status());
            }
            long finalizations = history.stream().filter(event -> TERMINAL.contains(event.status())).count();
            if (finalizations > 1) {
                doubleFinalized++;
                violations.add("job " + job.id() + " was finalized " + finalizations + " times");
            }
            if (job.attempt() > job.maxAttempts()) {
                overMax++;
                violations.add("job " + job.id() + " ran attempt " + job.attempt() + " of " + job.maxAttempts());
            }
            checkExpectedEnd(job);
            checkExecutions(job, history, runs);
            List<FaultLedger.Entry> starts = runs.stream().filter(FaultLedger.Entry::isStart).toList();
            for (int i = 1; i < starts.size() && HEALTHY.contains(job.kind()); i++) {
                // Poison jobs run again by design (retries of a throw, a hang, a halt); healthy ones
                // only after their worker was lost. Rescue = the adopter putting the job back in play.
                FaultLedger.Entry before = starts.get(i - 1);
                StatusEvent rescue = history.stream().filter(event -> event.isRescueOf(before.attempt())).findFirst()
                        .orElse(null);
                if (rescue == null) {
                    continue; // reported by checkExecutions: re-executed without a lease loss
                }
                Cause cause = cause(before, rescue.atMillis(), faults, haltedAt, job.kind());
                duplicates.merge(cause.name(), 1, Integer::sum);
                if (cause.fromMillis() >= 0) {
                    long waited = rescue.atMillis() - cause.fromMillis();
                    maxRescue = Math.max(maxRescue, waited);
                    maxRescueByCause.merge(cause.name(), waited, Math::max);
                    long bound = LEASE_REAPER_POLL.toMillis() + cause.extraMillis() + SLACK.toMillis();
                    if (waited > bound) {
                        violations.add("job " + job.id() + " waited " + waited + " ms to be rescued after "
                                + cause.name() + " (bound " + bound + " ms)");
                    }
                }
            }
        }
        return new Report(database, plan.form(), jobs.size(), workersStarted, count(faults, "kill"),
                count(faults, "pause"), count(faults, "exit"), count(faults, "start-failed"), count(faults, "restart"),
                faults.stream().filter(fault -> fault.type().equals("restart"))
                        .mapToLong(fault -> fault.untilMillis() - fault.atMillis()).max().orElse(0), lost, doubleFinalized, overMax,
                duplicates, maxRescue, maxRescueByCause, countLines(workerLog, "discarded the"), countLines(workerLog, "lost its lease"),
                countLines(workerLog, "resuming its execution") - countLines(workerLog, "its execution is gone"),
                countLines(workerLog, "its execution is gone"), List.copyOf(violations));
    }

    /** Healthy jobs succeed; each poison kind ends the way its retries must end. */
    private void checkExpectedEnd(JobRow job) {
        String expected = switch (job.kind()) {
            case "fault.work", "command" -> "succeeded";
            case "fault.hang" -> "timed_out";
            default -> "failed";
        };
        boolean lostWithItsWorker = !HEALTHY.contains(job.kind()) && job.status().equals("failed")
                && String.valueOf(job.lastError()).contains("lease expired"); // its last attempt's worker died
        if (TERMINAL.contains(job.status()) && !job.status().equals(expected) && !lostWithItsWorker) {
            violations.add("job " + job.id() + " (" + job.kind() + ") ended " + job.status() + ", expected "
                    + expected + ": " + job.lastError());
        }
        if (job.kind().equals("fault.exit") && job.status().equals("failed")
                && !String.valueOf(job.lastError()).contains("lease expired")) {
            violations.add("job " + job.id() + " (fault.exit) failed with " + job.lastError());
        }
    }

    /**
     * At most one execution per attempt (a new execution needs a new claim); a healthy job runs
     * again only after its lease was lost (every retry of it says so); a succeeded job's last
     * attempt ran to its end.
     */
    private void checkExecutions(JobRow job, List<StatusEvent> history, List<FaultLedger.Entry> runs) {
        Map<Integer, Integer> startsPerAttempt = new HashMap<>();
        runs.stream().filter(FaultLedger.Entry::isStart).forEach(run -> startsPerAttempt.merge(run.attempt(), 1, Integer::sum));
        startsPerAttempt.forEach((attempt, starts) -> {
            if (starts > 1) {
                violations.add("job " + job.id() + " attempt " + attempt + " was executed " + starts + " times");
            }
        });
        long claims = history.stream().filter(event -> event.status().equals("running")).count();
        if (startsPerAttempt.size() > claims) {
            violations.add("job " + job.id() + " ran " + startsPerAttempt.size() + " attempts but was claimed " + claims + " times");
        }
        if (HEALTHY.contains(job.kind())) {
            history.stream().skip(1).filter(event -> event.status().equals("queued"))
                    .filter(event -> !String.valueOf(event.message()).contains("lease expired"))
                    .forEach(event -> violations.add("healthy job " + job.id() + " was retried without a lease loss: "
                            + event.message()));
        }
        if (job.status().equals("succeeded") && HEALTHY.contains(job.kind())
                && runs.stream().noneMatch(run -> run.event().equals("end") && run.attempt() == job.attempt())) {
            violations.add("job " + job.id() + " succeeded in attempt " + job.attempt() + " that never ran to its end");
        }
    }

    /** Why an execution was followed by another, and from when its rescue is measured (-1: unknown). */
    private record Cause(String name, long fromMillis, long extraMillis) {
    }

    private static Cause cause(FaultLedger.Entry before, long rescuedAt, List<FaultRun.Fault> faults,
            Map<Long, Long> haltedAt, String kind) {
        if (kind.equals("command")) {
            return new Cause("command gone with its worker", -1, 0); // its process died too: no adoption possible
        }
        for (FaultRun.Fault fault : faults) {
            boolean during = fault.atMillis() >= before.atMillis() - 50 && fault.atMillis() <= rescuedAt;
            if (fault.type().equals("kill") && fault.pid() == before.pid() && during) {
                return new Cause("worker SIGKILLed", fault.atMillis(), 0);
            }
            if (fault.type().equals("pause") && fault.pid() == before.pid() && fault.untilMillis() >= before.atMillis()
                    && fault.atMillis() <= rescuedAt) {
                return new Cause(PAUSED, Math.max(fault.atMillis(), before.atMillis()), 0);
            }
        }
        Long halt = haltedAt.get(before.pid());
        if (halt != null && halt >= before.atMillis() - 50 && halt <= rescuedAt) {
            return new Cause("worker halted by a poison job", halt, 0);
        }
        for (FaultRun.Fault fault : faults) {
            if (fault.type().equals("restart") && fault.untilMillis() >= before.atMillis()
                    && fault.atMillis() <= rescuedAt) {
                return new Cause("database restarted", Math.max(fault.atMillis(), before.atMillis()),
                        fault.untilMillis() - fault.atMillis());
            }
        }
        return new Cause("lease lost without an injected fault (worker stalled)", -1, 0);
    }

    /** When each worker process was halted: the start of a {@code fault.exit} execution in it. */
    private static Map<Long, Long> haltTimes(FaultLedger ledger, Map<String, String> kindOf) {
        Map<Long, Long> halted = new HashMap<>();
        ledger.entries().stream().filter(FaultLedger.Entry::isStart)
                .filter(entry -> "fault.exit".equals(kindOf.get(entry.jobId())))
                .forEach(entry -> halted.put(entry.pid(), entry.atMillis()));
        return halted;
    }

    private static int count(List<FaultRun.Fault> faults, String type) {
        return (int) faults.stream().filter(fault -> fault.type().equals(type)).count();
    }

    private static int countLines(List<String> lines, String text) {
        return (int) lines.stream().filter(line -> line.contains(text)).count();
    }
}
