package dev.skiplock.conformance;

import dev.skiplock.conformance.FaultTables.Event;
import java.util.List;

/**
 * Claims through a {@link FaultProxy} (README "Guarantees": an attempt is used only by an
 * execution). For every job a proxied worker claimed, the proxy saw the claim's answer: when it
 * cut that answer (after the claim committed), the claim must have been given back — its attempt
 * unused — at once, or at the next heartbeat (+ slack, + the database's downtime); when it passed
 * the answer on, the claimed attempt must have an execution in the ledger. Either is excused only
 * when the claiming worker was killed, paused or halted, or the database restarted, before that.
 */
final class FaultClaimCheck {
    /**
     * The proxy notes a claim when its answer ended, after the database stamped the claim's running
     * event (same machine, same clock, both to the millisecond rounded down): the claim's event is
     * the last one not after that. A re-claim after a give-back is stamped later.
     */
    private static final long CLOCK_TOLERANCE_MILLIS = 0;

    /**
     * @param claims            claim answers that took jobs, through the proxies
     * @param jobsClaimed       jobs in them
     * @param answersCut        claim answers the proxies cut after the claim committed
     * @param jobsGivenBack     jobs of cut answers given back, attempt unused
     * @param maxGiveBackMillis the longest from a cut until its jobs were given back
     * @param excused           jobs of claims whose worker or database a fault hit before they were given back or run
     */
    record Figures(int claims, int jobsClaimed, int answersCut, int jobsGivenBack, long maxGiveBackMillis, int excused) {
    }

    private FaultClaimCheck() {
    }

    static Figures check(List<FaultRun.ProxiedClaim> claims, FaultAnalysis.History history, List<String> violations) {
        int jobs = 0;
        int cut = 0;
        int givenBack = 0;
        long maxGiveBack = 0;
        int excused = 0;
        for (FaultRun.ProxiedClaim proxied : claims) {
            FaultProxy.Claim claim = proxied.claim();
            cut += claim.cut() ? 1 : 0;
            for (String jobId : claim.jobIds()) {
                jobs++;
                List<Event> events = history.statusOf(jobId);
                int at = claimEventIndex(events, claim.atMillis());
                if (at < 0) {
                    violations.add("job " + jobId + " claimed through a proxy at " + claim.atMillis()
                            + " has no running event before then");
                    continue;
                }
                Event claimed = events.get(at);
                Event next = at + 1 < events.size() ? events.get(at + 1) : null;
                long until = next != null ? next.atMillis() : Long.MAX_VALUE;
                boolean returned = next != null && next.attempt() == claimed.attempt() - 1
                        && (next.status().equals("queued") || next.status().equals("cancelled"));
                boolean hit = FaultAnalysis.faultHit(history.faults(), proxied.pid(), claim.atMillis(), until);
                if (claim.cut() && returned) {
                    givenBack++;
                    long took = next.atMillis() - claim.atMillis();
                    maxGiveBack = Math.max(maxGiveBack, took);
                    long bound = FaultAnalysis.HEARTBEAT.toMillis() + FaultAnalysis.SLACK.toMillis()
                            + FaultAnalysis.downtime(history.faults(), claim.atMillis(), next.atMillis());
                    if (took > bound) {
                        violations.add("job " + jobId + " of a claim cut at " + claim.atMillis() + " was given back after "
                                + took + " ms (bound " + bound + " ms)");
                    }
                } else if (claim.cut() || returned) {
                    if (hit) {
                        excused++;
                    } else if (claim.cut()) {
                        violations.add("job " + jobId + " of a claim cut at " + claim.atMillis() + " (worker " + proxied.pid()
                                + ") used attempt " + claimed.attempt() + " without an execution; next: " + describe(next));
                    }
                    // returned although the answer was passed on: the connection dropped as it went out; fine
                } else if (!executed(history, jobId, claimed.attempt()) && !cancelledBeforeItRan(next)) {
                    if (hit) {
                        excused++;
                    } else {
                        violations.add("job " + jobId + " claimed by worker " + proxied.pid() + " at " + claim.atMillis()
                                + " used attempt " + claimed.attempt() + " without an execution; next: " + describe(next));
                    }
                }
            }
        }
        return new Figures(claims.size(), jobs, cut, givenBack, maxGiveBack, excused);
    }

    /** The index of the running event this claim wrote: the last one stamped before the proxy saw the answer. */
    private static int claimEventIndex(List<Event> events, long answeredAtMillis) {
        int found = -1;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).status().equals("running") && events.get(i).atMillis() <= answeredAtMillis + CLOCK_TOLERANCE_MILLIS) {
                found = i;
            }
        }
        return found;
    }

    private static boolean executed(FaultAnalysis.History history, String jobId, int attempt) {
        return history.startsOf(jobId).stream().anyMatch(start -> start.attempt() == attempt);
    }

    /** A cancel that reached the execution before its handler's first line. */
    private static boolean cancelledBeforeItRan(Event next) {
        return next != null && next.status().equals("cancelled");
    }

    private static String describe(Event event) {
        return event == null ? "none" : event.status() + " attempt " + event.attempt() + " at " + event.atMillis() + " "
                + event.message();
    }
}
