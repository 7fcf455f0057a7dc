package dev.skiplock.internal.store;

import dev.skiplock.Job;
import dev.skiplock.spi.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Reads claimed {@code skiplock_jobs} rows into {@link Claimed}s under one claim's token: the job
 * ({@link JobRows}) and its snoozes, a column no {@link Job} component shows. Resolves the column's
 * position once per result set, as {@link JobRows} does. One instance per query; not thread-safe.
 */
final class ClaimedRows implements SqlRunner.RowMapper<Claimed> {
    private final JobRows jobs;
    private final UUID token;
    private int snoozes;
    private ResultSet resolvedFor;

    ClaimedRows(Dialect dialect, UUID token) {
        this.jobs = new JobRows(dialect);
        this.token = token;
    }

    @Override
    public Claimed map(ResultSet row) throws SQLException {
        if (row != resolvedFor) {
            snoozes = row.findColumn("snoozes");
            resolvedFor = row;
        }
        Job job = jobs.map(row);
        return new Claimed(job, new HeldAttempt(job.id(), job.attempt(), token), token, 0, row.getInt(snoozes));
    }
}
