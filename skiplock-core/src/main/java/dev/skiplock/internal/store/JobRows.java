package dev.skiplock.internal.store;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.Json;
import dev.skiplock.spi.Dialect;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads a {@code skiplock_jobs} row (all columns) into a {@link Job}. */
final class JobRows {
    private JobRows() {
    }

    static SqlRunner.RowMapper<Job> mapper(Dialect dialect) {
        return row -> map(dialect, row);
    }

    private static Job map(Dialect dialect, ResultSet row) throws SQLException {
        int timeout = row.getInt("timeout_seconds");
        Integer timeoutSeconds = row.wasNull() ? null : timeout;
        return new Job(
                dialect.getUuid(row, "id"),
                row.getString("tenant"),
                row.getString("queue"),
                row.getString("kind"),
                Json.read(row.getString("args")),
                Json.read(row.getString("metadata")),
                row.getInt("priority"),
                JobStatus.fromWireName(row.getString("status")),
                row.getInt("attempt"),
                row.getInt("max_attempts"),
                dialect.getInstant(row, "available_at"),
                dialect.getInstant(row, "requested_at"),
                dialect.getInstant(row, "started_at"),
                dialect.getInstant(row, "finished_at"),
                timeoutSeconds,
                row.getString("unique_key"),
                row.getBoolean("cancel_requested"),
                Json.read(row.getString("result")),
                row.getString("last_error"),
                row.getString("locked_by"),
                dialect.getInstant(row, "locked_until"));
    }
}
