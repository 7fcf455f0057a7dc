package dev.skiplock.internal.store;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Work on each idle connection of a pool, all borrowed at once so that each is a different one (a
 * pool lends no connection twice at a time): the warm-up's rehearsal on every backend a worker's
 * statements will run on ({@code Warmup}).
 */
final class PoolLoans {
    /**
     * How long one borrow may wait: the connections were counted idle, so a wait means another
     * thread took one meanwhile (an application's, on a pool it shares), and the work goes on with
     * those already borrowed rather than hold a start up for the pool's own timeout.
     */
    private static final long BORROW_WAIT_MS = 250;
    /**
     * How long to wait for a pool to open the connections it keeps idle: HikariCP opens one when
     * it starts and the rest from a thread of its own, about 100 ms later (a worker started at once
     * after it was built found five of its eleven open).
     */
    private static final long FILL_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private PoolLoans() {
    }

    /**
     * Runs {@code work} on each connection {@code pool} holds idle, a HikariCP pool's, once it
     * opened those it keeps idle ({@code minimumIdle}, waited for up to a second); none of another
     * data source, whose connections cannot be counted. Only idle ones: a pool is never made to
     * open more than it would (an application's pool given to Skiplock keeps its size).
     * {@code inParallel}: on all connections at once (where the database runs writers side by
     * side), else one after another. Returns what the work returned, a result a connection.
     */
    static <T> List<T> onEachIdle(DataSource pool, boolean inParallel, Function<Connection, T> work) {
        if (!(pool instanceof HikariDataSource hikari) || !(hikari.getHikariPoolMXBean() instanceof HikariPool state)) {
            return List.of();
        }
        long deadline = System.nanoTime() + FILL_WAIT_NANOS;
        while (state.getTotalConnections() < hikari.getMinimumIdle() && System.nanoTime() < deadline
                && !Thread.currentThread().isInterrupted()) {
            java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5));
        }
        int idle = state.getIdleConnections();
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < idle; i++) {
                borrowed.add(state.getConnection(BORROW_WAIT_MS));
            }
        } catch (SQLTransientConnectionException e) {
            // taken by another thread meanwhile: the work runs on those borrowed
        } catch (SQLException e) {
            close(borrowed);
            throw new SqlRunner.StoreException("cannot borrow a connection: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            close(borrowed);
            throw e;
        }
        try {
            return inParallel ? applyInParallel(borrowed, work) : borrowed.stream().map(work).toList();
        } finally {
            close(borrowed);
        }
    }

    /** {@code work} on each connection, a virtual thread each; the first failure is rethrown once all ended. */
    private static <T> List<T> applyInParallel(List<Connection> connections, Function<Connection, T> work) {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<T>> results = connections.stream().map(connection -> threads.submit(() -> work.apply(connection)))
                    .toList();
            List<T> values = new ArrayList<>();
            for (Future<T> result : results) {
                values.add(result.get());
            }
            return values;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the pool's connections were at work", e);
        }
    }

    private static void close(List<Connection> borrowed) {
        for (Connection connection : borrowed) {
            try {
                connection.close();
            } catch (SQLException e) {
                // back in the pool, or evicted by it: nothing is kept
            }
        }
    }
}
