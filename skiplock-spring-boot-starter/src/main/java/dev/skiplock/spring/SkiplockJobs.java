package dev.skiplock.spring;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobRequest;
import dev.skiplock.SkiplockClient;
import java.sql.Connection;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Enqueue that joins the current Spring-managed transaction ({@code @Transactional},
 * {@code TransactionTemplate}): inside one, the job is written on the transaction's connection of
 * Skiplock's {@code DataSource}, so it exists once the transaction commits and never if it rolls
 * back; outside one, it is enqueued in its own transaction. A transaction of another DataSource is
 * refused ({@code IllegalStateException}): the job would not commit with it. In-memory jobs
 * ({@code withDurable(false)}) are never written, so they start at once either way. Jobs enqueued
 * in a transaction wait for commit, then for the next poll on SQLite (PostgreSQL wakes workers on
 * commit). For everything else (get, cancel, list, events) use the {@code Skiplock} bean. Thread-safe.
 */
public final class SkiplockJobs {
    private final SkiplockClient skiplock;
    private final JobClient client;
    private final DataSource dataSource;

    public SkiplockJobs(SkiplockClient skiplock) {
        this(skiplock, skiplock);
    }

    private SkiplockJobs(SkiplockClient skiplock, JobClient client) {
        this.skiplock = skiplock;
        this.client = client;
        this.dataSource = skiplock.dataSource();
    }

    /** The same enqueue for {@code tenant}'s jobs. */
    public SkiplockJobs tenant(String tenant) {
        return new SkiplockJobs(skiplock, skiplock.tenant(tenant));
    }

    /** Enqueues one job, in the current transaction if there is one (see the class comment). */
    public Job enqueue(JobRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("request: is required"); // as the library says it
        }
        if (!request.durable()) {
            return client.enqueue(request);
        }
        return inTransaction(request, client::enqueue, client::enqueue);
    }

    /** Enqueues a batch atomically, in the current transaction if there is one. */
    public List<Job> enqueueMany(List<JobRequest> requests) {
        return inTransaction(requests, client::enqueueMany, client::enqueueMany);
    }

    private <I, O> O inTransaction(I input, Function<I, O> own, BiFunction<Connection, I, O> joined) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return own.apply(input);
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            // A transaction of another DataSource (another transaction manager's) leaves Skiplock's
            // connection in autocommit: the job would exist at once, whatever the transaction does.
            if (connection.getAutoCommit()) {
                throw new IllegalStateException("the current Spring transaction is not on Skiplock's DataSource, so"
                        + " the job would not commit or roll back with it: enqueue outside the transaction, or run"
                        + " the transaction on Skiplock's DataSource");
            }
            return joined.apply(connection, input);
        } catch (java.sql.SQLException e) {
            throw new org.springframework.jdbc.CannotGetJdbcConnectionException("could not read the connection's autocommit", e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}
