package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.spi.Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A claim's transaction commits without syncing the WAL ({@code PRAGMA synchronous = NORMAL},
 * {@link SqliteDialect#relaxClaimCommit}); the connection goes back to its pool at the level
 * its URL chose, so every other write (an outcome, an enqueue) syncs as before. Each test reads the
 * level on the connection that runs the statement, while it runs: the pool below holds one
 * connection, under HikariCP as Skiplock's own pool is.
 */
class SqliteClaimCommitSyncTest {
    /** Text of the claim's statement (jobs.sql, claim_jobs). */
    private static final String CLAIM = "SET status = 'running', attempt = attempt + 1";
    /** Text of a success batch's statement (hot_path.sql, complete_successes). */
    private static final String SUCCESS = "SET status = 'succeeded',";
    private static final int NORMAL = 1;
    private static final int FULL = 2;

    @TempDir
    Path folder;

    private Skiplock client;
    private HikariDataSource pool;
    /** The level each run of {@link #CLAIM} or {@link #SUCCESS} found on its connection, in order. */
    private final List<String> levelsSeen = new CopyOnWriteArrayList<>();
    /** The statement whose next preparation fails (once), or null. */
    private volatile String failing;
    /** Counted down when a connection of the pool is closed. */
    private final CountDownLatch closed = new CountDownLatch(1);
    private JobStore store;

    @AfterEach
    void close() {
        if (pool != null) {
            pool.close();
        }
        if (client != null) {
            client.close();
        }
    }

    @Test
    void aClaimCommitsWithoutSyncAndTheOutcomeSyncs() throws Exception {
        open("");
        Job first = client.enqueue(JobRequest.of("synced", Map.of()));
        Job second = client.enqueue(JobRequest.of("synced", Map.of()));

        List<Claimed> claimed = store.claimJobs(claim(UUID.randomUUID()), null, 1);
        assertThat(claimed).extracting(c -> c.job().id()).containsExactly(first.id());
        HeldAttempt lease = claimed.getFirst().lease();
        assertThat(store.completeJobs(List.of(new Completion(lease, JobStatus.SUCCEEDED, 0, null, null, 0))))
                .containsExactly(lease);
        // again on the same connection, whose statements (the pragmas too) are kept prepared
        assertThat(store.claimJobs(claim(UUID.randomUUID()), null, 1)).extracting(c -> c.job().id())
                .containsExactly(second.id());

        assertThat(levelsSeen).containsExactly("claim " + NORMAL, "success " + FULL, "claim " + NORMAL);
        assertThat(levelOfThePoolsConnection()).isEqualTo(FULL);
    }

    /** A claim that fails is rolled back, and its connection put back at the URL's level. */
    @Test
    void aClaimThatFailsLeavesItsConnectionSynced() throws Exception {
        open("");
        Job job = client.enqueue(JobRequest.of("synced", Map.of()));
        failing = CLAIM;
        assertThatThrownBy(() -> store.claimJobs(claim(UUID.randomUUID()), null, 10)).hasStackTraceContaining("test: fails");
        assertThat(levelOfThePoolsConnection()).isEqualTo(FULL);
        assertThat(closed.getCount()).as("connections closed").isEqualTo(1);
        assertThat(store.claimJobs(claim(UUID.randomUUID()), null, 10)).extracting(c -> c.job().id())
                .containsExactly(job.id());
    }

    @ParameterizedTest
    @CsvSource({"EXTRA, 3", "NORMAL, 1"})
    void theLevelTheUrlChoseComesBackAfterTheClaim(String chosen, int level) throws Exception {
        open("?synchronous=" + chosen);
        client.enqueue(JobRequest.of("synced", Map.of()));
        assertThat(store.claimJobs(claim(UUID.randomUUID()), null, 10)).hasSize(1);
        assertThat(levelsSeen).containsExactly("claim " + NORMAL);
        assertThat(levelOfThePoolsConnection()).isEqualTo(level);
    }

    /**
     * A connection left at {@code NORMAL} would commit every later write unsynced: if its level
     * cannot be put back, the claim fails (its caller gives its jobs back: it may have committed)
     * and the pool closes the connection.
     */
    @Test
    void aConnectionWhoseLevelCannotBePutBackIsClosed() throws Exception {
        open("");
        Job job = client.enqueue(JobRequest.of("synced", Map.of()));
        UUID token = UUID.randomUUID();

        failing = "PRAGMA synchronous = FULL";
        assertThatThrownBy(() -> store.claimJobs(claim(token), null, 10))
                .hasMessageContaining("putting back the claim's commit setting").hasStackTraceContaining("test: fails");
        assertThat(closed.await(30, TimeUnit.SECONDS)).as("the pool closed the connection").isTrue();

        assertThat(store.unclaimJobs("default", token)).as("the claim had committed; given back").isEqualTo(1);
        assertThat(levelOfThePoolsConnection()).as("a new connection").isEqualTo(FULL);
        assertThat(store.claimJobs(claim(UUID.randomUUID()), null, 10)).extracting(c -> c.job().id())
                .containsExactly(job.id());
    }

    /** SQLite applies a pragma as it compiles it, so a failure to relax may have relaxed all the same: the pool closes the connection. */
    @Test
    void aConnectionThatFailedToRelaxIsClosed() throws Exception {
        open("");
        Job job = client.enqueue(JobRequest.of("synced", Map.of()));
        failing = "PRAGMA synchronous = NORMAL";
        assertThatThrownBy(() -> store.claimJobs(claim(UUID.randomUUID()), null, 10))
                .hasMessageContaining("relaxing the claim's commit").hasStackTraceContaining("test: fails");
        assertThat(closed.await(30, TimeUnit.SECONDS)).as("the pool closed the connection").isTrue();
        assertThat(store.claimJobs(claim(UUID.randomUUID()), null, 10)).extracting(c -> c.job().id())
                .containsExactly(job.id());
    }

    /** A connection only HikariCP can be told to close if its level cannot be put back; any other claims synced. */
    @Test
    void aConnectionFromAnotherPoolClaimsSynced() throws Exception {
        open("");
        store = new JobStore(watched(connections("")), new SqliteDriver());
        client.enqueue(JobRequest.of("synced", Map.of()));
        assertThat(store.claimJobs(claim(UUID.randomUUID()), null, 10)).hasSize(1);
        assertThat(levelsSeen).containsExactly("claim " + FULL);
    }

    /**
     * With a rollback journal, NORMAL may corrupt the file on a power loss; a shared cache's
     * connections share the level; in a transaction SQLite refuses the pragma.
     */
    @Test
    void noLevelChangesWithoutWalWithASharedCacheOrInATransaction() throws Exception {
        SqliteDialect dialect = new SqliteDialect();
        try (Connection rollbackJournal = DriverManager.getConnection(
                "jdbc:sqlite:" + folder.resolve("journal.db") + "?journal_mode=DELETE&synchronous=FULL")) {
            assertThat(dialect.relaxClaimCommit(rollbackJournal)).isSameAs(Dialect.CommitSync.UNCHANGED);
            assertThat(SqliteDialect.synchronousLevel(rollbackJournal)).isEqualTo(FULL);
        }
        try (Connection sharedCache = DriverManager.getConnection(
                "jdbc:sqlite:" + folder.resolve("shared.db") + "?journal_mode=WAL&synchronous=FULL&shared_cache=true")) {
            assertThat(dialect.relaxClaimCommit(sharedCache)).isSameAs(Dialect.CommitSync.UNCHANGED);
            assertThat(SqliteDialect.synchronousLevel(sharedCache)).isEqualTo(FULL);
        }
        try (Connection wal = DriverManager.getConnection(
                "jdbc:sqlite:" + folder.resolve("wal.db") + "?journal_mode=WAL&synchronous=FULL")) {
            wal.setAutoCommit(false);
            assertThat(dialect.relaxClaimCommit(wal)).isSameAs(Dialect.CommitSync.UNCHANGED);
            assertThat(SqliteDialect.synchronousLevel(wal)).isEqualTo(FULL);
            wal.setAutoCommit(true);
            Dialect.CommitSync sync = dialect.relaxClaimCommit(wal);
            assertThat(SqliteDialect.synchronousLevel(wal)).isEqualTo(NORMAL);
            sync.restore();
            assertThat(SqliteDialect.synchronousLevel(wal)).isEqualTo(FULL);
        }
    }

    /** Migrates the file with a client, then opens {@link #store} on a one-connection pool of the same URL. */
    private void open(String parameters) {
        String url = "jdbc:sqlite:" + folder.resolve("jobs.db") + parameters;
        client = Skiplock.builder().url(url).build();
        HikariConfig config = new HikariConfig();
        config.setDataSource(watched(connections(parameters)));
        config.setMaximumPoolSize(1);
        pool = new HikariDataSource(config);
        store = new JobStore(pool, new SqliteDriver());
    }

    /** A new connection to the file at each call, set up as Skiplock's pool's are. */
    private DataSource connections(String parameters) {
        String url = "jdbc:sqlite:" + folder.resolve("jobs.db") + parameters;
        return new SqliteConnections(url + (parameters.isEmpty() ? "?" : "&") + SqliteDriver.SETTINGS
                + "&synchronous=" + SqliteDriver.synchronous(url), SqliteDriver.BUSY_TIMEOUT_MILLIS);
    }

    private int levelOfThePoolsConnection() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            return SqliteDialect.synchronousLevel(connection);
        }
    }

    private static ClaimParams claim(UUID token) {
        return new ClaimParams("default", "worker-1", "host-1", token, 30_000, "[]");
    }

    /** {@code target}'s connections, reporting the level at the claim and the success, failing {@link #failing} once when set. */
    private DataSource watched(DataSource target) {
        return Intercepted.connections(target, this::watched);
    }

    private Connection watched(Connection target) {
        return Intercepted.proxy(Connection.class, (method, args) -> {
            if (method.getName().equals("close")) {
                closed.countDown();
            }
            if (method.getName().equals("prepareStatement")) {
                String sql = (String) args[0];
                String fails = failing;
                if (fails != null && sql.contains(fails)) {
                    failing = null;
                    throw new SQLException("test: fails");
                }
                String seen = sql.contains(CLAIM) ? "claim" : sql.contains(SUCCESS) ? "success" : null;
                if (seen != null) {
                    PreparedStatement statement = (PreparedStatement) Intercepted.invoke(method, target, args);
                    return Intercepted.proxy(PreparedStatement.class, (inner, innerArgs) -> {
                        if (inner.getName().startsWith("execute")) {
                            levelsSeen.add(seen + " " + SqliteDialect.synchronousLevel(target));
                        }
                        return Intercepted.invoke(inner, statement, innerArgs);
                    });
                }
            }
            return Intercepted.invoke(method, target, args);
        });
    }
}
