package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The reaper whose turn it is searches the waiting jobs to settle (find_settleable_jobs,
 * settle_waiting_jobs in one statement until the search became a read of its own), mostly to find
 * nothing. On a drained
 * table without fresh statistics PostgreSQL planned it past jit_above_cost and compiled its plan at
 * each run (issue #12: four reaper runs, 878 ms of JIT, pg_stat_statements), so the search runs with
 * JIT off for its transaction only. PostgreSQL alone: SQLite has no JIT.
 */
class PostgresReaperPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * An application's pool whose sessions run with JIT on: the reaper's search for a stranded
     * waiting job runs with it off, and the pool's connections keep their own setting.
     */
    @Test
    void theReapersSearchOfWaitingJobsRunsWithoutJitOnAPoolThatHasItOn() throws Exception {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new DependencyRaceContract.Work("unfinished"))
                .withQueue("parking"));
        Job stranded = DependencyRaceContract.strandedWaitingJob(client, database, unfinished);

        String search = BeforeStatement.sql(client, "jobs", "find_settleable_jobs");
        try (HikariDataSource pool = poolWithJitOn()) {
            JitAtSearch watched = new JitAtSearch(pool, search);
            try {
                started(Skiplock.builder().dataSource(watched.dataSource())
                        .config(fastConfig().queue("other", 1).build()));
                assertThat(awaitStatus(client, stranded.id(), JobStatus.QUEUED).lastError()).isNull();
            } finally {
                closeInstances(); // before the pool they borrow from
            }
            assertThat(watched.atPrepare()).as("jit when find_settleable_jobs was prepared").isNotEmpty()
                    .containsOnly("off");
            assertThat(watched.atClose()).as("jit when a connection that ran it went back to the pool")
                    .isNotEmpty().containsOnly("on");
        }
    }

    private HikariDataSource poolWithJitOn() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.url());
        config.setMaximumPoolSize(6);
        config.setConnectionInitSql("SET jit = on");
        return new HikariDataSource(config);
    }

    private static String jit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery("SHOW jit")) {
            row.next();
            return row.getString(1);
        }
    }

    /**
     * A pool's connections as they are, except that preparing find_settleable_jobs first reads the
     * connection's {@code jit} setting (what the statement is planned under), and so does giving
     * back a connection that prepared it (what the pool gets back).
     */
    private static final class JitAtSearch {
        private final DataSource pool;
        private final String search;
        private final List<String> atPrepare = new CopyOnWriteArrayList<>();
        private final List<String> atClose = new CopyOnWriteArrayList<>();

        JitAtSearch(DataSource pool, String search) {
            this.pool = pool;
            this.search = search;
        }

        List<String> atPrepare() {
            return atPrepare;
        }

        List<String> atClose() {
            return atClose;
        }

        DataSource dataSource() {
            return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                    (proxy, method, args) -> {
                        Object result = call(pool, method, args);
                        return result instanceof Connection connection ? watched(connection) : result;
                    });
        }

        private Connection watched(Connection connection) {
            boolean[] preparedSearch = {false};
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("prepareStatement") && search.equals(args[0])) {
                            atPrepare.add(jit(connection));
                            preparedSearch[0] = true;
                        } else if (method.getName().equals("close") && preparedSearch[0]) {
                            atClose.add(jit(connection));
                        }
                        return call(connection, method, args);
                    });
        }

        private static Object call(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
