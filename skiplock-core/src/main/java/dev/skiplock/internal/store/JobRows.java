package dev.skiplock.internal.store;

import dev.skiplock.Job;
import dev.skiplock.spi.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Reads {@code skiplock_jobs} rows (all {@link JobColumns}) into {@link Job}s. One instance per query:
 * it resolves column positions once per result set instead of by name for every value (measured as
 * a visible share of claim time when profiling the drain benchmark). Not thread-safe.
 */
final class JobRows implements SqlRunner.RowMapper<Job> {
    private static final List<JobColumns.Column<?>> COLUMNS = JobColumns.all();

    private final Dialect dialect;
    private final int[] index = new int[COLUMNS.size()];
    private ResultSet resolvedFor;

    JobRows(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public Job map(ResultSet row) throws SQLException {
        if (row != resolvedFor) {
            for (int i = 0; i < index.length; i++) {
                index[i] = row.findColumn(COLUMNS.get(i).name());
            }
            resolvedFor = row;
        }
        Job.Builder job = Job.builder();
        for (int i = 0; i < index.length; i++) {
            COLUMNS.get(i).read(row, index[i], dialect, job);
        }
        return job.build();
    }
}
