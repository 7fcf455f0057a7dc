package dev.skiplock.conformance;

import dev.skiplock.conformance.FaultTables.JobRow;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Retention while everything else goes on (README "Guarantees": retention deletes only jobs that
 * are terminal at the moment of deletion). Some workers keep finished jobs only a few seconds, so
 * most jobs are deleted during the run, racing retries, claims and the faults. The record of
 * deletions holds each row as it was deleted: every job enqueued is either still there or was
 * deleted exactly once, terminal, and no sooner than the retention after it finished.
 */
final class FaultRetentionCheck {
    /**
     * @param deleted                     jobs deleted by retention during the run
     * @param minAgeAtDeleteMillis        the youngest finished job deleted: time from its finish to its delete
     * @param dependencyRowsOfDeletedJobs rows of skiplock_job_dependencies left behind by deleted jobs
     *                                    (retention does not delete them: reported, not an invariant)
     */
    record Figures(int deleted, long minAgeAtDeleteMillis, long dependencyRowsOfDeletedJobs) {
    }

    private FaultRetentionCheck() {
    }

    static Figures check(int enqueued, List<JobRow> rows, FaultPlan.Workers workers, long dependencyRowsOfDeletedJobs,
            List<String> violations) {
        if (rows.size() != enqueued) {
            violations.add("expected " + enqueued + " jobs (in the table or deleted), found " + rows.size());
        }
        Set<String> seen = new HashSet<>();
        int deleted = 0;
        long minAge = Long.MAX_VALUE;
        for (JobRow job : rows) {
            if (!seen.add(job.id())) {
                violations.add("job " + job.id() + " was deleted more than once, or deleted and still there");
            }
            if (!job.deleted()) {
                continue;
            }
            deleted++;
            if (!FaultAnalysis.TERMINAL.contains(job.status())) {
                violations.add("job " + job.id() + " (" + job.kind() + ") was deleted while " + job.status());
                continue;
            }
            long age = job.deletedAtMillis() - job.finishedAtMillis();
            minAge = Math.min(minAge, age);
            if (workers.retaining() > 0 && age < workers.retention().toMillis()) {
                violations.add("job " + job.id() + " was deleted " + age + " ms after it finished (retention "
                        + workers.retention().toMillis() + " ms)");
            }
        }
        return new Figures(deleted, deleted == 0 ? 0 : minAge, dependencyRowsOfDeletedJobs);
    }
}
