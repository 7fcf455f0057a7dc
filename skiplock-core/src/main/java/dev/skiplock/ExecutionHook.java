package dev.skiplock;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs inside every transaction a handler opens with {@link JobContext#inTransaction} (seed
 * ADR-0001): first {@link #beforeExecute}, then the handler's work, then {@link #afterExecute},
 * then the commit. The place for what the database must know about the job before the handler's
 * statements run, e.g. the tenant for a row-level security policy:
 *
 * <pre>{@code
 * Skiplock.builder().executionHook(new ExecutionHook() {
 *     public void beforeExecute(JobContext<?> job, Connection connection) throws SQLException {
 *         try (var set = connection.prepareStatement("SELECT set_config('app.tenant_id', ?, true)")) {
 *             set.setString(1, job.job().tenant());
 *             set.execute();
 *         }
 *     }
 * })
 * }</pre>
 *
 * A hook that throws rolls the transaction back and fails the handler's call with its exception.
 */
public interface ExecutionHook {
    /** No hook. */
    ExecutionHook NONE = new ExecutionHook() {
    };

    /** In the transaction, before the handler's work; {@code connection} has auto-commit off. */
    default void beforeExecute(JobContext<?> context, Connection connection) throws SQLException {
    }

    /** In the transaction, after the handler's work returned and before the commit. */
    default void afterExecute(JobContext<?> context, Connection connection) throws SQLException {
    }
}
