package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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
     * A second connection writes a job's row, without waiting for the lock, at the settle's
     * thousandth virtual machine step within one step of a statement (a progress handler on the
     * settle's connection: inside the search, which walks a thousand waiting jobs before it finds
     * the stranded one); the stranded job is settled after. Before the search was a read of its
     * own, the write found the database locked.
     */
    @Test
    void aWriterCommitsWhileTheSettleSearchesTheWaitingJobs() throws Exception {
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
            ProgressHandler.setHandler(sqlite, 1_000, new ProgressHandler() {
                @Override
                protected int progress() {
                    if (writes.isEmpty()) {
                        writes.add(write(writer, unfinished));
                    }
                    return 0;
                }
            });
            try {
                JobStore store = new JobStore(OneConnection.lending(settling), FastPathContract.driver(client));
                settled = store.settleWaitingJobs("reaper");
            } finally {
                ProgressHandler.clearHandler(sqlite);
            }
        }

        assertThat(writes).containsExactly("committed");
        assertThat(settled).isEqualTo(1);
        assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    /**
     * Rewrites {@code job}'s row (its priority as it is) on {@code writer} and commits: "committed",
     * or why it could not. A commit that moves the log: a search that left its read open would make
     * the settle's write after it fail (SQLITE_BUSY_SNAPSHOT).
     */
    private static String write(Connection writer, Job job) {
        try (PreparedStatement update = writer.prepareStatement("UPDATE skiplock_jobs SET priority = priority WHERE id = ?")) {
            update.setString(1, job.id().toString());
            return update.executeUpdate() == 1 ? "committed" : "no row";
        } catch (SQLException e) {
            return e.getMessage();
        }
    }
}
