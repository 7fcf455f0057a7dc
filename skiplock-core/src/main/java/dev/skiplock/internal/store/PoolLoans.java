package dev.skiplock.internal.store;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Work on each connection a pool can lend, all borrowed at once so that each is a different one
 * (a pool lends no connection twice at a time): the warm-up's rehearsal on every backend a
 * worker's statements will run on ({@code Warmup}).
 */
final class PoolLoans {
    /**
     * How long one borrow may wait: the connections were counted free, so a wait means another
     * thread took one meanwhile (an application's, on a pool it shares), and the work goes on
     * with those already borrowed rather than hold a start up for the pool's own timeout.
     */
    private static final long BORROW_WAIT_MS = 250;

    private PoolLoans() {
    }

    /**
     * Runs {@code work} on each connection {@code pool} lends now: a HikariCP pool's idle ones and
     * those it may still open; none of another data source, whose size is unknown. Returns what
     * the work returned, a result a connection.
     */
    static <T> List<T> onEachAvailable(DataSource pool, Function<Connection, T> work) {
        if (!(pool instanceof HikariDataSource hikari) || !(hikari.getHikariPoolMXBean() instanceof HikariPool state)) {
            return List.of();
        }
        int available = hikari.getMaximumPoolSize() - state.getActiveConnections();
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < available; i++) {
                borrowed.add(state.getConnection(BORROW_WAIT_MS));
            }
        } catch (SQLTransientConnectionException e) {
            // taken by another thread meanwhile: the work runs on those borrowed
        } catch (SQLException e) {
            close(borrowed);
            throw new SqlRunner.StoreException("cannot borrow a connection: " + e.getMessage(), e);
        }
        try {
            List<T> results = new ArrayList<>();
            for (Connection connection : borrowed) {
                results.add(work.apply(connection));
            }
            return results;
        } finally {
            close(borrowed);
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
