package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * sqlite-jdbc begins the next transaction as soon as {@code commit()} returns, and with
 * {@code BEGIN IMMEDIATE} that takes the write lock again, waiting for any writer that got it in
 * between. A transaction of Skiplock's own ends by going back to autocommit instead, which commits
 * and leaves the lock to the next writer (with {@code commit()}, a claim in a transaction gave the
 * lock back to itself and the SQLite drain kept its half-size batches).
 */
class SqliteTransactionEndTest extends ContractBase {
    record Payload(int number) {
    }

    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void aTransactionOfSkiplockLeavesTheWriteLockFreeOnceItCommitted() {
        Skiplock owner = client(); // migrates, and owns the pool the checked client borrows
        List<String> ends = new CopyOnWriteArrayList<>();
        List<String> lockHeldAfter = new CopyOnWriteArrayList<>();
        DataSource checked = checkingEnds(owner.dataSource(), ends, lockHeldAfter);

        // Building checks the schema in a transaction of its own (Migrator), even with nothing to apply.
        Skiplock client = track(Skiplock.builder().dataSource(checked).config(fastConfig().build()).build());
        assertThat(ends).as("the build ended a transaction").isNotEmpty();
        assertThat(lockHeldAfter).as("calls after which the connection still held the write lock").isEmpty();
        Job parent = client.enqueue(JobRequest.of("k", new Payload(1)));
        ends.clear();

        // An enqueue with a dependency runs in a transaction of its own (read the dependency, insert, link).
        client.enqueue(JobRequest.of("k", new Payload(2)).withDependsOn(List.of(parent.id())));

        assertThat(ends).as("the enqueue ended a transaction").isNotEmpty();
        assertThat(lockHeldAfter).as("calls after which the connection still held the write lock").isEmpty();
    }

    /**
     * A COMMIT that fails (a deferred foreign key of the application's own tables) leaves SQLite's
     * transaction open while sqlite-jdbc already counts itself in autocommit and refuses rollback():
     * the transaction must still be rolled back before the connection goes back to the pool, or it
     * keeps the write lock from every other writer and swallows the autocommit writes of whoever
     * borrows the connection next.
     */
    @Test
    void aHandlersTransactionWhoseCommitFailsIsRolledBackAndLeavesTheWriteLockFree() {
        Skiplock owner = client();
        Jdbc.update(owner.dataSource(), "CREATE TABLE parent (id INTEGER PRIMARY KEY)");
        Jdbc.update(owner.dataSource(), "CREATE TABLE child (id INTEGER PRIMARY KEY,"
                + " parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)");
        List<String> failures = new CopyOnWriteArrayList<>();
        List<Boolean> lockFreeAfterFailure = new CopyOnWriteArrayList<>();
        Duration never = Duration.ofHours(1);
        // Nothing else of the worker writes while the probe runs (see the test above).
        Skiplock worker = started(builder(config -> config.queue("default", 1).leaseTtl(Duration.ofHours(2))
                .heartbeatInterval(never).reaperInterval(never).pollInterval(never))
                .handler("k", Payload.class, context -> {
                    if (context.args().number() == 1) {
                        try {
                            context.inTransaction(connection -> {
                                try (Statement statement = connection.createStatement()) {
                                    statement.execute("INSERT INTO child (id, parent_id) VALUES (1, 999)");
                                }
                                return null;
                            });
                        } catch (Exception e) {
                            failures.add(e.getMessage());
                        }
                        lockFreeAfterFailure.add(writeLockFree());
                    }
                    return JobOutcome.complete();
                }));

        Job first = worker.enqueue(JobRequest.of("k", new Payload(1)));
        assertThat(awaitTerminal(worker, first.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        Job second = worker.enqueue(JobRequest.of("k", new Payload(2)));
        assertThat(awaitTerminal(worker, second.id()).status()).isEqualTo(JobStatus.SUCCEEDED);

        assertThat(failures).singleElement().asString().contains("FOREIGN KEY");
        assertThat(lockFreeAfterFailure).containsExactly(true);
        assertThat(Jdbc.query(owner.dataSource(), "SELECT count(*) FROM child", row -> row.getInt(1))).containsExactly(0);
        // Seen from a connection of its own: the worker's later writes were committed.
        try (Connection other = DriverManager.getConnection(database.url());
                Statement statement = other.createStatement();
                java.sql.ResultSet row = statement.executeQuery("SELECT status FROM skiplock_jobs WHERE id = '"
                        + second.id() + "'")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1)).isEqualTo("succeeded");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aHandlersTransactionLeavesTheWriteLockFreeOnceItCommitted() {
        Skiplock owner = client();
        List<String> ends = new CopyOnWriteArrayList<>();
        List<String> lockHeldAfter = new CopyOnWriteArrayList<>();
        DataSource checked = checkingEnds(owner.dataSource(), ends, lockHeldAfter);
        List<String> endsInHandler = new CopyOnWriteArrayList<>();
        List<String> lockHeldInHandler = new CopyOnWriteArrayList<>();
        // Nothing else of the worker writes while the handler's transaction ends: no poll, heartbeat
        // or reaper comes round within the test (the enqueue's notification wakes the claimer).
        Duration never = Duration.ofHours(1);
        Skiplock worker = started(Skiplock.builder().dataSource(checked).config(fastConfig().queue("default", 1)
                        .leaseTtl(Duration.ofHours(2)).heartbeatInterval(never).reaperInterval(never).pollInterval(never)
                        .build())
                .handler("k", Payload.class, context -> {
                    ends.clear(); // the worker's start ended transactions of its own
                    lockHeldAfter.clear();
                    context.inTransaction(connection -> {
                        try (Statement statement = connection.createStatement()) {
                            statement.execute("SELECT 1");
                        }
                        return null;
                    });
                    endsInHandler.addAll(ends);
                    lockHeldInHandler.addAll(lockHeldAfter);
                    return JobOutcome.complete();
                }));

        Job job = worker.enqueue(JobRequest.of("k", new Payload(1)));

        assertThat(awaitTerminal(worker, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(endsInHandler).as("the handler's transaction ended").isNotEmpty();
        assertThat(lockHeldInHandler).as("calls after which the connection still held the write lock").isEmpty();
    }

    /**
     * Connections of {@code target} that, after each {@code commit()} and {@code setAutoCommit(true)},
     * record the call in {@code ends} and, if a second connection cannot take the write lock at once,
     * in {@code lockHeldAfter}.
     */
    private DataSource checkingEnds(DataSource target, List<String> ends, List<String> lockHeldAfter) {
        return proxy(DataSource.class, target, (name, args, result) -> name.equals("getConnection")
                ? proxy(Connection.class, (Connection) result, (call, callArgs, ignored) -> {
                    boolean end = call.equals("commit") || call.equals("setAutoCommit") && Boolean.TRUE.equals(callArgs[0]);
                    if (end) {
                        ends.add(call);
                        if (!writeLockFree()) {
                            lockHeldAfter.add(call);
                        }
                    }
                    return ignored;
                })
                : result);
    }

    private boolean writeLockFree() {
        try (Connection probe = DriverManager.getConnection(database.url() + "?busy_timeout=0");
                Statement statement = probe.createStatement()) {
            statement.execute("BEGIN IMMEDIATE");
            statement.execute("ROLLBACK");
            return true;
        } catch (SQLException e) {
            if (e.getErrorCode() == 5) { // SQLITE_BUSY
                return false;
            }
            throw new IllegalStateException(e);
        }
    }

    private interface AfterCall {
        Object apply(String method, Object[] args, Object result) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, AfterCall after) {
        return (T) Proxy.newProxyInstance(SqliteTransactionEndTest.class.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    return after.apply(method.getName(), args, result);
                });
    }
}
