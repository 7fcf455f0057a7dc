package dev.skiplock.conformance;

import dev.skiplock.conformance.FaultTables.Event;
import dev.skiplock.conformance.FaultTables.JobRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a fault run's invariants from the database (jobs and their events, deleted ones
 * included), the execution ledger and the harness's own records, and measures what the closing
 * report needs. The checks of one concern each live beside it: {@link FaultJobChecks} (every job),
 * {@link FaultDependencyCheck}, {@link FaultOutputCheck}, {@link FaultClaimCheck},
 * {@link FaultRetentionCheck}, {@link FaultCronCheck}.
 */
final class FaultAnalysis {
    static final Set<String> TERMINAL = Set.of("succeeded", "failed", "timed_out", "cancelled");
    static final Set<String> HEALTHY = Set.of("fault.work", "fault.diamond", "fault.hostile", "fault.cron", "command");
    /**
     * What a rescue may take on top of lease + reaper + poll + backoff: a loaded 2-core machine
     * running several JVMs and a database. A job stuck beyond this is a bug, not noise.
     */
    static final Duration SLACK = Duration.ofSeconds(8);
    /** The worker processes' timings (WorkerProcess): the rescue bound lease + reaper + poll. */
    static final Duration LEASE_REAPER_POLL = Duration.ofMillis(2000 + 300 + 200);
    /** The worker processes' heartbeat (WorkerProcess): a lost claim answer is given back by then. */
    static final Duration HEARTBEAT = Duration.ofMillis(500);

    /** The cause of a re-execution when the first execution's worker was SIGSTOPped past its lease. */
    static final String PAUSED = "worker SIGSTOPped past its lease";

    /** Everything a run left behind. */
    record Observed(FaultJobs jobs, List<JobRow> rows, List<Event> events, FaultLedger ledger, List<FaultRun.Fault> faults,
            int workersStarted, Map<Long, List<String>> logByPid, List<FaultClient.Call> calls, List<FaultClient.Sighting> sightings,
            List<String> waitingAtEnd, List<FaultRun.ProxiedClaim> claims, long dependencyRowsOfDeletedJobs,
            List<FaultTables.CronMarker> cronMarkers) {
    }

    /** One run's history, indexed by job: what every check reads. */
    record History(Map<String, JobRow> jobs, Map<String, List<Event>> status, Map<String, List<Event>> logs,
            Map<String, List<FaultLedger.Entry>> executions, List<FaultRun.Fault> faults) {
        List<Event> statusOf(String id) {
            return status.getOrDefault(id, List.of());
        }

        List<FaultLedger.Entry> startsOf(String id) {
            return executions.getOrDefault(id, List.of()).stream().filter(FaultLedger.Entry::isStart).toList();
        }
    }

    /** What the run showed; {@code violations} must be empty. */
    record Report(String database, String form, Run run, Outcomes outcomes, Calls calls,
            FaultOutputCheck.Figures hostileOutput, FaultDependencyCheck.Figures diamonds, FaultClaimCheck.Figures claims,
            FaultRetentionCheck.Figures retention, FaultCronCheck.Figures cron, List<String> violations) {
    }

    /** The faults injected and observed. */
    record Run(int jobs, int workersStarted, int killed, int paused, int exited, int startsFailed, int databaseRestarts,
            long maxDatabaseDowntimeMillis, int connectionCuts, int schedulersKilled, int schedulersPaused) {
    }

    /** What became of the jobs. */
    record Outcomes(int lost, int doubleFinalized, int overMaxAttempts, Map<String, Integer> duplicateExecutions,
            int rescuedFromResumedWorkers, long maxRescueMillis, Map<String, Long> maxRescueMillisByCause,
            int staleCompletionsRejected, int leasesLost, int commandsResumed, int commandsGone, int attemptsWithoutExecution) {
    }

    /** The harness's API calls during the run, by what came of them. */
    record Calls(long retried, long retriesRefused, long retriesOfDeletedJobs, long cancelled, long cancelsRefused) {
    }

    private final List<String> violations = new ArrayList<>();

    Report analyse(String database, FaultPlan plan, Observed observed) {
        History history = index(observed);
        Map<String, List<FaultClient.Call>> callsByJob = new HashMap<>();
        observed.calls().stream().filter(FaultClient.Call::done)
                .forEach(call -> callsByJob.computeIfAbsent(call.jobId(), id -> new ArrayList<>()).add(call));
        FaultJobChecks jobChecks = new FaultJobChecks(history, observed.jobs().diamondIds(), observed.logByPid(), violations);
        for (JobRow job : observed.rows()) {
            jobChecks.check(job, callsByJob.getOrDefault(job.id(), List.of()));
        }
        var hostile = FaultOutputCheck.check(observed.jobs().hostile(), history, violations);
        var diamonds = FaultDependencyCheck.check(observed.jobs().diamonds(), history, observed.sightings(),
                observed.waitingAtEnd(), violations);
        var claims = FaultClaimCheck.check(observed.claims(), history, observed.logByPid(), violations);
        var retention = FaultRetentionCheck.check(observed.jobs().total() + observed.cronMarkers().size(),
                observed.rows(), plan.workers(), observed.dependencyRowsOfDeletedJobs(), violations);
        var cron = FaultCronCheck.check(plan.workers().schedulers(), observed.rows(), observed.cronMarkers(), violations);
        List<FaultRun.Fault> faults = observed.faults();
        Run run = new Run(observed.rows().size(), observed.workersStarted(), count(faults, "kill"), count(faults, "pause"),
                count(faults, "exit"), count(faults, "start-failed"), count(faults, "restart"),
                faults.stream().filter(fault -> fault.type().equals("restart"))
                        .mapToLong(fault -> fault.untilMillis() - fault.atMillis()).max().orElse(0),
                count(faults, "cut"), count(faults, "scheduler-kill"), count(faults, "scheduler-pause"));
        List<String> log = observed.logByPid().values().stream().flatMap(List::stream).toList();
        Outcomes outcomes = new Outcomes(jobChecks.lost, jobChecks.doubleFinalized, jobChecks.overMax,
                jobChecks.duplicates, jobChecks.rescuedFromResumedWorkers, jobChecks.maxRescue, jobChecks.maxRescueByCause,
                countLines(log, "discarded the"), countLines(log, "lost its lease"),
                countLines(log, "resuming its execution") - countLines(log, "its execution is gone"),
                countLines(log, "its execution is gone"), jobChecks.attemptsWithoutExecution);
        return new Report(database, plan.form(), run, outcomes, calls(observed.calls()), hostile, diamonds, claims,
                retention, cron, capped(violations));
    }

    private static History index(Observed observed) {
        Map<String, JobRow> jobs = new HashMap<>();
        observed.rows().forEach(job -> jobs.put(job.id(), job));
        Map<String, List<Event>> status = new HashMap<>();
        Map<String, List<Event>> logs = new HashMap<>();
        for (Event event : observed.events()) {
            (event.type().equals("status") ? status : logs).computeIfAbsent(event.jobId(), id -> new ArrayList<>())
                    .add(event);
        }
        return new History(jobs, status, logs, observed.ledger().byJob(), observed.faults());
    }

    private static Calls calls(List<FaultClient.Call> calls) {
        return new Calls(calls(calls, "retry", "done"), calls(calls, "retry", "refused"), calls(calls, "retry", "gone"),
                calls(calls, "cancel", "done"), calls(calls, "cancel", "refused") + calls(calls, "cancel", "gone"));
    }

    private static long calls(List<FaultClient.Call> calls, String type, String result) {
        return calls.stream().filter(call -> call.type().equals(type) && call.result().equals(result)).count();
    }

    /** A report stays readable when a bug breaks thousands of jobs the same way. */
    private static List<String> capped(List<String> violations) {
        if (violations.size() <= 200) {
            return List.copyOf(violations);
        }
        List<String> first = new ArrayList<>(violations.subList(0, 200));
        first.add("… and " + (violations.size() - 200) + " more");
        return first;
    }

    /** Whether {@code pid} was killed, paused or halted, or the database restarted, between two instants. */
    static boolean faultHit(List<FaultRun.Fault> faults, long pid, long fromMillis, long toMillis) {
        for (FaultRun.Fault fault : faults) {
            boolean ownWorker = fault.pid() == pid && Set.of("kill", "pause", "exit").contains(fault.type());
            boolean database = fault.type().equals("restart");
            if ((ownWorker || database) && fault.untilMillis() >= fromMillis - 50 && fault.atMillis() <= toMillis) {
                return true;
            }
        }
        return false;
    }

    /** How long the database was down between two instants. */
    static long downtime(List<FaultRun.Fault> faults, long fromMillis, long toMillis) {
        return faults.stream().filter(fault -> fault.type().equals("restart"))
                .filter(fault -> fault.untilMillis() >= fromMillis && fault.atMillis() <= toMillis)
                .mapToLong(fault -> fault.untilMillis() - fault.atMillis()).sum();
    }

    private static int count(List<FaultRun.Fault> faults, String type) {
        return (int) faults.stream().filter(fault -> fault.type().equals(type)).count();
    }

    private static int countLines(List<String> lines, String text) {
        return (int) lines.stream().filter(line -> line.contains(text)).count();
    }
}
