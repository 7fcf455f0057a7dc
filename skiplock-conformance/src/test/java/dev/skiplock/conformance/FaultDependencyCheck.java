package dev.skiplock.conformance;

import dev.skiplock.conformance.FaultTables.JobRow;
import java.util.List;

/**
 * Dependency diamonds (A and B → C → D) whose parents run at the same moment, mostly in different
 * worker processes: no job is ever {@code waiting} while all its dependencies succeeded (sampled
 * every 250 ms during the run, and at its end); a child of succeeded parents ran only after both finished (its
 * first execution in the ledger starts after both parents' {@code finished_at}); a child of a
 * failed parent failed naming it, and never ran.
 */
final class FaultDependencyCheck {
    /**
     * @param parentsOnTwoWorkers   diamonds whose parents' last executions ran in two worker processes
     * @param parentsWithin100Ms    diamonds whose parents finished within 100 ms of each other
     * @param parentsOverlapping    diamonds whose parents' final transactions overlapped: the one
     *                              that began first committed last (and released the child)
     * @param waitingSightings      jobs seen waiting with all dependencies succeeded (released since, or not)
     * @param longestSightingMillis the longest such sighting
     */
    record Figures(int diamonds, int failing, int parentsOnTwoWorkers, int parentsWithin100Ms, int parentsOverlapping,
            int childrenRan,
            int childrenFailedNamingTheirParent, int waitingSightings, long longestSightingMillis) {
    }

    private FaultDependencyCheck() {
    }

    static Figures check(List<FaultJobs.Diamond> diamonds, FaultAnalysis.History history,
            List<FaultClient.Sighting> sightings, List<String> waitingAtEnd, List<String> violations) {
        int failing = 0;
        int twoWorkers = 0;
        int together = 0;
        int ran = 0;
        int failedNaming = 0;
        int overlapping = 0;
        for (FaultJobs.Diamond diamond : diamonds) {
            JobRow a = history.jobs().get(diamond.a());
            JobRow b = history.jobs().get(diamond.b());
            JobRow c = history.jobs().get(diamond.c());
            JobRow d = history.jobs().get(diamond.d());
            if (a == null || b == null || c == null || d == null) {
                violations.add("diamond " + diamond + " lost a job");
                continue;
            }
            List<FaultLedger.Entry> startsA = history.startsOf(a.id());
            List<FaultLedger.Entry> startsB = history.startsOf(b.id());
            if (!startsA.isEmpty() && !startsB.isEmpty() && startsA.getLast().pid() != startsB.getLast().pid()) {
                twoWorkers++;
            }
            if (Math.abs(a.finishedAtMillis() - b.finishedAtMillis()) <= 100) {
                together++;
            }
            overlapping += checkReleasedByItsLastDependency(List.of(a, b), c, history, violations);
            checkReleasedByItsLastDependency(List.of(c), d, history, violations);
            if (diamond.failing()) {
                failing++;
                failedNaming += checkFailedChild(a, c, history, violations) + checkFailedChild(c, d, history, violations);
            } else {
                ran += checkChildRanAfter(List.of(a, b), c, history, violations)
                        + checkChildRanAfter(List.of(c), d, history, violations);
            }
        }
        long longest = 0;
        for (FaultClient.Sighting sighting : sightings) {
            // The last dependency to succeed releases its dependents in its own transaction, so no
            // snapshot may show one waiting (the reaper's settle_waiting_jobs is a backstop for an
            // enqueue racing its dependencies, which this run does not do: children come first).
            long seenFor = sighting.lastMillis() - sighting.firstMillis();
            longest = Math.max(longest, seenFor);
            violations.add("job " + sighting.jobId() + " was waiting although all its dependencies had succeeded (seen "
                    + (seenFor == 0 ? "once" : "for " + seenFor + " ms") + " from " + sighting.firstMillis() + ")");
        }
        waitingAtEnd.forEach(id -> violations.add("job " + id + " is still waiting although all its dependencies succeeded"));
        return new Figures(diamonds.size(), failing, twoWorkers, together, overlapping, ran, failedNaming, sightings.size(), longest);
    }

    /**
     * The child left {@code waiting} in the transaction of the dependency that committed last (a
     * failed one fails it at once): its status event carries that transaction's time, which is
     * that dependency's {@code finished_at}. Not necessarily the latest {@code finished_at}: a
     * transaction that began first may commit last (it waited for the child's lock). Any other
     * time means both dependencies' transactions missed it and the reaper's
     * {@code settle_waiting_jobs} caught it later (issue #10, fault 2).
     */
    private static int checkReleasedByItsLastDependency(List<JobRow> parents, JobRow child,
            FaultAnalysis.History history, List<String> violations) {
        List<FaultTables.Event> events = history.statusOf(child.id());
        boolean failedParent = parents.stream().anyMatch(parent -> !parent.status().equals("succeeded"));
        List<Long> deciders = parents.stream().filter(parent -> !failedParent || !parent.status().equals("succeeded"))
                .map(JobRow::finishedAtMillis).toList();
        for (int i = 1; i < events.size(); i++) {
            if (events.get(i - 1).status().equals("waiting")) {
                long at = events.get(i).atMillis();
                if (!deciders.contains(at)) {
                    violations.add("job " + child.id() + " left waiting (" + events.get(i).status() + ") at " + at
                            + ", not in the transaction of a dependency (they ended at " + deciders + ")");
                }
                // released in the transaction that began first: it committed last, so the two overlapped
                return deciders.size() > 1 && at == deciders.stream().mapToLong(Long::longValue).min().orElseThrow()
                        && at < deciders.stream().mapToLong(Long::longValue).max().orElseThrow() ? 1 : 0;
            }
        }
        return 0;
    }

    /** Returns 1 if the child succeeded and its first execution started after every parent finished. */
    private static int checkChildRanAfter(List<JobRow> parents, JobRow child, FaultAnalysis.History history,
            List<String> violations) {
        for (JobRow parent : parents) {
            if (!parent.status().equals("succeeded")) {
                violations.add("diamond parent " + parent.id() + " ended " + parent.status() + ": " + parent.lastError());
                return 0;
            }
        }
        if (!child.status().equals("succeeded")) {
            violations.add("diamond child " + child.id() + " of succeeded parents ended " + child.status() + ": "
                    + child.lastError());
            return 0;
        }
        List<FaultLedger.Entry> starts = history.startsOf(child.id());
        long parentsFinished = parents.stream().mapToLong(JobRow::finishedAtMillis).max().orElseThrow();
        // finished_at is taken before the parent's commit, which releases the child: strictly earlier,
        // to the millisecond the database keeps.
        if (starts.isEmpty() || starts.getFirst().atMillis() < parentsFinished) {
            violations.add("diamond child " + child.id() + " started at "
                    + (starts.isEmpty() ? "no time" : starts.getFirst().atMillis()) + ", before its parents finished at "
                    + parentsFinished);
            return 0;
        }
        return 1;
    }

    /** Returns 1 if the child of a failed parent failed naming it and never ran. */
    private static int checkFailedChild(JobRow parent, JobRow child, FaultAnalysis.History history,
            List<String> violations) {
        if (!parent.status().equals("failed")) {
            violations.add("failing diamond parent " + parent.id() + " ended " + parent.status());
            return 0;
        }
        if (!child.status().equals("failed") || !String.valueOf(child.lastError()).contains(parent.id())) {
            violations.add("diamond child " + child.id() + " of failed " + parent.id() + " ended " + child.status()
                    + ": " + child.lastError());
            return 0;
        }
        if (!history.startsOf(child.id()).isEmpty()) {
            violations.add("diamond child " + child.id() + " of failed " + parent.id() + " ran");
            return 0;
        }
        return 1;
    }
}
