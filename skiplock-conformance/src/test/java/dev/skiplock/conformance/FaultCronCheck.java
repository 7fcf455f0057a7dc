package dev.skiplock.conformance;

import dev.skiplock.conformance.FaultTables.CronMarker;
import dev.skiplock.conformance.FaultTables.JobRow;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Two cron schedulers (real {@code skiplock serve} processes, paused and killed among the other
 * faults) run the same {@code @every 1s} schedule, whose jobs finish in milliseconds (README
 * "Guarantees": each cron slot enqueued at most once, ever). One job per slot, by the jobs' own
 * {@code cron} metadata, deleted jobs included; one slot marker per job, naming it. Slots none
 * of them enqueued (the database was down, or both schedulers were) are counted, not a violation.
 */
final class FaultCronCheck {
    /**
     * @param schedulers   cron schedulers kept running
     * @param jobs         jobs the schedulers enqueued
     * @param slots        distinct slots those jobs name
     * @param slotsMissed  slots between the first and the last that no job names
     */
    record Figures(int schedulers, int jobs, int slots, int slotsMissed) {
    }

    private FaultCronCheck() {
    }

    static Figures check(int schedulers, List<JobRow> rows, List<CronMarker> markers, List<String> violations) {
        List<JobRow> cronJobs = rows.stream().filter(job -> job.cronSlot() != null).toList();
        Map<String, List<String>> jobsBySlot = cronJobs.stream().collect(Collectors.groupingBy(JobRow::cronSlot,
                Collectors.mapping(JobRow::id, Collectors.toList())));
        jobsBySlot.forEach((slot, ids) -> {
            if (ids.size() > 1) {
                violations.add("cron slot " + slot + " was enqueued " + ids.size() + " times: " + ids);
            }
        });
        Map<String, CronMarker> markerOfJob = new HashMap<>();
        for (CronMarker marker : markers) {
            if (markerOfJob.put(marker.jobId(), marker) != null) {
                violations.add("job " + marker.jobId() + " is named by two cron slot markers");
            }
        }
        Set<String> cronJobIds = cronJobs.stream().map(JobRow::id).collect(Collectors.toSet());
        cronJobs.stream().filter(job -> !markerOfJob.containsKey(job.id()))
                .forEach(job -> violations.add("cron job " + job.id() + " (" + job.cronSlot() + ") has no slot marker"));
        markers.stream().filter(marker -> !cronJobIds.contains(marker.jobId()))
                .forEach(marker -> violations.add("cron slot marker " + marker + " names no job of the run"));
        TreeSet<Long> slots = markers.stream().map(CronMarker::slot).collect(Collectors.toCollection(TreeSet::new));
        int missed = slots.isEmpty() ? 0 : (int) ((slots.last() - slots.first()) / 1000 + 1 - slots.size());
        return new Figures(schedulers, cronJobs.size(), jobsBySlot.size(), missed);
    }
}
