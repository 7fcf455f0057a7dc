package dev.skiplock.conformance;

import static dev.skiplock.conformance.FaultAnalysis.HEALTHY;
import static dev.skiplock.conformance.FaultAnalysis.TERMINAL;

import dev.skiplock.conformance.FaultTables.Event;
import dev.skiplock.conformance.FaultTables.JobRow;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The invariants every job of a fault run keeps, whatever was done to it: it ended, once per
 * terminal period (a retry through the API opens a new one), within its attempts, with at most one
 * execution per attempt, the way its kind must end; a healthy job ran again only after a lease
 * loss or a retry, and every rescue came within lease + reaper + poll (+ slack).
 */
final class FaultJobChecks {
    private final FaultAnalysis.History history;
    private final Set<String> diamondIds;
    private final Map<Long, List<String>> logByPid;
    private final List<String> violations;
    private final Map<Long, Long> haltedAt;

    int lost;
    int doubleFinalized;
    int overMax;
    int attemptsWithoutExecution;
    final Map<String, Integer> duplicates = new TreeMap<>();
    /** Rescues from a paused worker that then ran on long enough to learn it had lost the job ({@link #ranOnAfterPause}). */
    int rescuedFromResumedWorkers;
    long maxRescue;
    final Map<String, Long> maxRescueByCause = new TreeMap<>();

    FaultJobChecks(FaultAnalysis.History history, Set<String> diamondIds, Map<Long, List<String>> logByPid,
                   List<String> violations) {
        this.history = history;
        this.diamondIds = diamondIds;
        this.logByPid = logByPid;
        this.violations = violations;
        this.haltedAt = haltTimes(history);
    }

    /** {@code calls}: the retries and cancels the harness made on this job (done ones), in order. */
    void check(JobRow job, List<FaultClient.Call> calls) {
        List<Event> events = history.statusOf(job.id());
        if (!TERMINAL.contains(job.status())) {
            lost++;
            if (!job.deleted()) { // a deleted one is reported by FaultRetentionCheck
                violations.add("job " + job.id() + " (" + job.kind() + ") is still " + job.status());
            }
        }
        checkTerminalPeriods(job, events, calls);
        if (job.attempt() > job.maxAttempts()) {
            overMax++;
            violations.add("job " + job.id() + " ran attempt " + job.attempt() + " of " + job.maxAttempts());
        }
        if (!diamondIds.contains(job.id())) {
            checkExpectedEnd(job, calls.isEmpty() ? null : calls.getLast());
        }
        checkExecutions(job, events);
        checkRescues(job, events);
    }

    /** One terminal status event per terminal period: the first, then one after each retry the harness made. */
    private void checkTerminalPeriods(JobRow job, List<Event> events, List<FaultClient.Call> calls) {
        long finalizations = events.stream().filter(event -> TERMINAL.contains(event.status())).count();
        int retriedEvents = 0;
        for (int i = 1; i < events.size(); i++) {
            if (TERMINAL.contains(events.get(i - 1).status()) && !TERMINAL.contains(events.get(i).status())) {
                retriedEvents++; // only retry_job takes a job from a terminal status back
            }
        }
        long retries = calls.stream().filter(call -> call.type().equals("retry")).count();
        if (finalizations > retriedEvents + 1) {
            doubleFinalized++;
            violations.add("job " + job.id() + " was finalized " + finalizations + " times in " + (retriedEvents + 1)
                    + " terminal periods");
        }
        if (retriedEvents != retries) {
            violations.add("job " + job.id() + " was retried " + retries + " times but left a terminal status "
                    + retriedEvents + " times");
        }
    }

    /** Healthy jobs succeed; each poison kind ends the way its retries must end; a cancelled job may have finished first. */
    private void checkExpectedEnd(JobRow job, FaultClient.Call lastCall) {
        Set<String> expected = switch (job.kind()) {
            case "fault.work", "fault.cron", "command", "fault.hostile" -> Set.of("succeeded");
            case "fault.hang" -> Set.of("timed_out");
            default -> Set.of("failed");
        };
        if (lastCall != null && lastCall.type().equals("cancel")) {
            expected = Set.of("cancelled", "succeeded"); // a cancel and a completion race: the first to commit wins
        }
        boolean lostWithItsWorker = !HEALTHY.contains(job.kind()) && job.status().equals("failed")
                && String.valueOf(job.lastError()).contains("lease expired"); // its last attempt's worker died
        if (TERMINAL.contains(job.status()) && !expected.contains(job.status()) && !lostWithItsWorker) {
            violations.add("job " + job.id() + " (" + job.kind() + ") ended " + job.status() + ", expected "
                    + expected + ": " + job.lastError());
        }
        if (job.kind().equals("fault.exit") && job.status().equals("failed")
                && !String.valueOf(job.lastError()).contains("lease expired")) {
            violations.add("job " + job.id() + " (fault.exit) failed with " + job.lastError());
        }
    }

    /**
     * At most one execution per attempt (a new execution needs a new claim); a healthy job goes back
     * to the queue only after its lease was lost, a claim whose answer was lost was given back, or a
     * retry; a succeeded job's last attempt ran to its end. Counts attempts used by no execution.
     */
    private void checkExecutions(JobRow job, List<Event> events) {
        List<FaultLedger.Entry> runs = history.executions().getOrDefault(job.id(), List.of());
        Map<Integer, Integer> startsPerAttempt = new HashMap<>();
        runs.stream().filter(FaultLedger.Entry::isStart).forEach(run -> startsPerAttempt.merge(run.attempt(), 1, Integer::sum));
        startsPerAttempt.forEach((attempt, starts) -> {
            if (starts > 1) {
                violations.add("job " + job.id() + " attempt " + attempt + " was executed " + starts + " times");
            }
        });
        long claims = events.stream().filter(event -> event.status().equals("running")).count();
        if (startsPerAttempt.size() > claims) {
            violations.add("job " + job.id() + " ran " + startsPerAttempt.size() + " attempts but was claimed " + claims + " times");
        }
        Set<Integer> usedAttempts = new HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            Event event = events.get(i);
            Event previous = i > 0 ? events.get(i - 1) : null;
            boolean givenBack = previous != null && previous.status().equals("running")
                    && event.attempt() == previous.attempt() - 1;
            if (event.status().equals("running")) {
                usedAttempts.add(event.attempt());
            } else if (givenBack) {
                usedAttempts.remove(previous.attempt());
            }
            // retry_job takes a job from a terminal status back; the last dependency to succeed releases a waiting one
            boolean retriedOrReleased = previous != null
                    && (TERMINAL.contains(previous.status()) || previous.status().equals("waiting"));
            if (HEALTHY.contains(job.kind()) && previous != null && event.status().equals("queued") && !givenBack
                    && !retriedOrReleased && !String.valueOf(event.message()).contains("lease expired")) {
                violations.add("healthy job " + job.id() + " was retried without a lease loss: " + event.message());
            }
        }
        usedAttempts.removeAll(startsPerAttempt.keySet());
        attemptsWithoutExecution += usedAttempts.size();
        if (job.status().equals("succeeded") && HEALTHY.contains(job.kind())
                && runs.stream().noneMatch(run -> run.event().equals("end") && run.attempt() == job.attempt())) {
            violations.add("job " + job.id() + " succeeded in attempt " + job.attempt() + " that never ran to its end");
        }
    }

    /** Each re-execution of a healthy job after a lease loss: its cause, and how long the rescue took. */
    private void checkRescues(JobRow job, List<Event> events) {
        List<FaultLedger.Entry> starts = history.startsOf(job.id());
        for (int i = 1; i < starts.size() && HEALTHY.contains(job.kind()); i++) {
            // Poison jobs run again by design (retries of a throw, a hang, a halt); healthy ones
            // only after their worker was lost. Rescue = the adopter putting the job back in play.
            FaultLedger.Entry before = starts.get(i - 1);
            Event rescue = events.stream().filter(event -> isRescueOf(event, before.attempt())).findFirst().orElse(null);
            if (rescue == null) {
                continue; // a retry through the API; or reported by checkExecutions: re-executed without a lease loss
            }
            Cause cause = cause(before, rescue.atMillis(), job.kind());
            duplicates.merge(cause.name(), 1, Integer::sum);
            if (cause.name().equals(FaultAnalysis.PAUSED) && ranOnAfterPause(before, rescue.atMillis())) {
                rescuedFromResumedWorkers++;
                checkLossReported(job, before);
            }
            if (cause.fromMillis() >= 0) {
                long waited = rescue.atMillis() - cause.fromMillis();
                maxRescue = Math.max(maxRescue, waited);
                maxRescueByCause.merge(cause.name(), waited, Math::max);
                long bound = FaultAnalysis.LEASE_REAPER_POLL.toMillis() + cause.extraMillis() + FaultAnalysis.SLACK.toMillis();
                if (waited > bound) {
                    violations.add("job " + job.id() + " waited " + waited + " ms to be rescued after "
                            + cause.name() + " (bound " + bound + " ms): from " + cause.fromMillis() + " to "
                            + rescue.atMillis() + "; the database's restarts: " + history.faults().stream()
                                    .filter(fault -> fault.type().equals("restart"))
                                    .map(fault -> fault.atMillis() + ".." + fault.untilMillis()).toList());
                }
            }
        }
    }

    /** The adopter found this attempt's worker gone and put the job back in play. */
    private static boolean isRescueOf(Event event, int lostAttempt) {
        return event.status().equals("queued") && event.attempt() == lostAttempt
                && String.valueOf(event.message()).contains("lease expired");
    }

    /** Why an execution was followed by another, and from when its rescue is measured (-1: unknown). */
    private record Cause(String name, long fromMillis, long extraMillis) {
    }

    private Cause cause(FaultLedger.Entry before, long rescuedAt, String kind) {
        if (kind.equals("command")) {
            return new Cause("command gone with its worker", -1, 0); // its process died too: no adoption possible
        }
        for (FaultRun.Fault fault : history.faults()) {
            boolean during = fault.atMillis() >= before.atMillis() - 50 && fault.atMillis() <= rescuedAt;
            if (fault.type().equals("kill") && fault.pid() == before.pid() && during) {
                return new Cause("worker SIGKILLed", fault.atMillis(), 0);
            }
            if (isPauseDuring(fault, before, rescuedAt)) {
                return new Cause(FaultAnalysis.PAUSED, Math.max(fault.atMillis(), before.atMillis()), 0);
            }
        }
        Long halt = haltedAt.get(before.pid());
        if (halt != null && halt >= before.atMillis() - 50 && halt <= rescuedAt) {
            return new Cause("worker halted by a poison job", halt, 0);
        }
        for (FaultRun.Fault fault : history.faults()) {
            if (fault.type().equals("restart") && fault.untilMillis() >= before.atMillis()
                    && fault.atMillis() <= rescuedAt) {
                return new Cause("database restarted", Math.max(fault.atMillis(), before.atMillis()),
                        fault.untilMillis() - fault.atMillis());
            }
        }
        for (FaultRun.Fault fault : history.faults()) {
            if (fault.type().equals("cut") && fault.pid() == before.pid() && fault.atMillis() >= before.atMillis() - 50
                    && fault.atMillis() <= rescuedAt) {
                return new Cause("connections cut", fault.atMillis(), 0);
            }
        }
        return new Cause("lease lost without an injected fault (worker stalled)", -1, 0);
    }

    /**
     * A paused worker that lived on after its SIGCONT learned that this execution was no longer its
     * own, and said so in its log: its heartbeat stopped the execution (lost its lease), or its
     * completer was refused the outcome (discarded). Either is the fence seen from the stale side.
     */
    private void checkLossReported(JobRow job, FaultLedger.Entry before) {
        String execution = "job " + job.id() + " attempt " + before.attempt();
        // The lines of Stopper and Completer: "job <id> attempt <n> lost its lease; ..." and
        // "discarded the <status> outcome of job <id> attempt <n>: ..."
        boolean reported = logByPid.getOrDefault(before.pid(), List.of()).stream().anyMatch(line ->
                line.contains(execution + " lost its lease")
                        || (line.contains("discarded the") && line.contains("outcome of " + execution + ":")));
        if (!reported) {
            violations.add(execution + ": its worker " + before.pid() + " ran on after a pause past its lease but"
                    + " never logged that the execution lost its lease or that its outcome was discarded");
        }
    }

    /** A SIGSTOP of the execution's worker that lasted into the execution and began before the rescue. */
    private static boolean isPauseDuring(FaultRun.Fault fault, FaultLedger.Entry before, long rescuedAt) {
        return fault.type().equals("pause") && fault.pid() == before.pid() && fault.untilMillis() >= before.atMillis()
                && fault.atMillis() <= rescuedAt;
    }

    /**
     * Whether the worker paused during this execution lived on after its SIGCONT for as long as it
     * takes to learn of a lost lease (a heartbeat, four times over for a loaded machine): one killed
     * or halted by a poison job before then may log neither a rejected outcome nor a lost lease.
     * The worker was alive when it was stopped, so any death of its process counts from the pause
     * on (a poison job that started just before the SIGSTOP halts the process at the SIGCONT).
     */
    private boolean ranOnAfterPause(FaultLedger.Entry before, long rescuedAt) {
        for (FaultRun.Fault pause : history.faults()) {
            if (isPauseDuring(pause, before, rescuedAt)) {
                long learnedBy = pause.untilMillis() + FaultAnalysis.HEARTBEAT.multipliedBy(4).toMillis();
                boolean died = history.faults().stream().anyMatch(fault -> fault.pid() == before.pid()
                        && (fault.type().equals("kill") || fault.type().equals("exit")) && fault.atMillis() < learnedBy);
                Long halt = haltedAt.get(before.pid());
                return !died && (halt == null || halt >= learnedBy);
            }
        }
        return false;
    }

    /** When each worker process was halted: the start of a {@code fault.exit} execution in it. */
    private static Map<Long, Long> haltTimes(FaultAnalysis.History history) {
        Map<Long, Long> halted = new HashMap<>();
        history.executions().forEach((jobId, entries) -> {
            JobRow job = history.jobs().get(jobId);
            if (job != null && job.kind().equals("fault.exit")) {
                entries.stream().filter(FaultLedger.Entry::isStart).forEach(entry -> halted.put(entry.pid(), entry.atMillis()));
            }
        });
        return halted;
    }
}
