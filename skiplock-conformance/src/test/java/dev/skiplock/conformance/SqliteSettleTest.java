package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

/**
 * The reaper's settle on SQLite searches every waiting job by a read of its own, outside a
 * transaction, so writers go on while it runs: as one statement with the update, the search held
 * the one write lock throughout (95 ms a run at 100,000 waiting jobs, every reaper run of every
 * worker). DependencyRaceContract holds both databases to what the settle does.
 */
class SqliteSettleTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    /**
     * A second connection takes the write lock, without waiting, at the settle's hundredth virtual
     * machine step (a progress handler on the settle's connection: inside the search, which walks
     * a thousand waiting jobs); the stranded job is settled after. Before the search was a read of
     * its own, the write found the database locked.
     */
    @Test
    void aWriterTakesTheWriteLockWhileTheSettleSearchesTheWaitingJobs() throws Exception {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new DependencyRaceContract.Work("unfinished"))
                .withQueue("parking"));
        client.enqueueMany(IntStream.range(0, 1_000).mapToObj(i -> JobRequest.of("work",
                new DependencyRaceContract.Work("waits")).withQueue("parking").withDependsOn(List.of(unfinished.id())))
                .toList());
        Job stranded = DependencyRaceContract.strandedWaitingJob(client, database, unfinished);

        List<String> writes = new CopyOnWriteArrayList<>();
        SQLiteConfig noWaiting = new SQLiteConfig();
        noWaiting.setBusyTimeout(0);
        int settled;
        try (Connection settling = client.dataSource().getConnection();
                Connection writer = noWaiting.createConnection(database.url())) {
            Connection sqlite = settling.unwrap(SQLiteConnection.class);
            ProgressHandler.setHandler(sqlite, 100, new ProgressHandler() {
                @Override
                protected int progress() {
                    if (writes.isEmpty()) {
                        writes.add(write(writer));
                    }
                    return 0;
                }
            });
            try {
                settled = new JobStore(OneConnection.lending(settling), FastPathContract.driver(client)).settleWaitingJobs();
            } finally {
                ProgressHandler.clearHandler(sqlite);
            }
        }

        assertThat(writes).containsExactly("committed");
        assertThat(settled).isEqualTo(1);
        assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    /** Takes the write lock and commits on {@code writer}: "committed", or why it could not. */
    private static String write(Connection writer) {
        try (Statement statement = writer.createStatement()) {
            statement.execute("BEGIN IMMEDIATE");
            statement.execute("COMMIT");
            return "committed";
        } catch (SQLException e) {
            return e.getMessage();
        }
    }
}
