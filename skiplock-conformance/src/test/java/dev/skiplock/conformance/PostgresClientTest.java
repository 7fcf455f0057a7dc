package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockException;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresClientTest extends ClientContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /** Credentials kept out of the URL reach the connection: a role that does not exist is refused. */
    @Test
    void theUserGivenToTheBuilderIsTheOneThatConnects() {
        String withoutUser = database.url().replaceAll("([?&])user=[^&]*&?", "$1");
        assertThatThrownBy(() -> Skiplock.builder().url(withoutUser).user("no_such_role").password("x").build())
                .isInstanceOf(SkiplockException.class).hasMessageContaining("no_such_role");
    }

    /** The library takes the URL form the CLI takes (libpq style), credentials included. */
    @Test
    void aLibpqUrlWorksAsWellAsAJdbcOne() {
        java.net.URI jdbc = java.net.URI.create(database.url().substring("jdbc:".length()));
        String user = java.util.Arrays.stream(jdbc.getQuery().split("&")).filter(part -> part.startsWith("user="))
                .findFirst().orElseThrow().substring("user=".length());
        String libpq = "postgresql://" + user + "@" + jdbc.getHost() + ":" + jdbc.getPort() + jdbc.getPath() + "?"
                + jdbc.getQuery().replaceAll("(^|&)user=[^&]*", "").replaceFirst("^&", "");
        try (Skiplock skiplock = Skiplock.builder().url(libpq).build()) {
            dev.skiplock.Job job = skiplock.enqueue(dev.skiplock.JobRequest.of("libpq", null));
            assertThat(skiplock.get(job.id())).isPresent();
        }
        assertThatThrownBy(() -> Skiplock.builder().url("postgresql:///nohost").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("url: no host");
    }

    /**
     * Two batches holding the same unique keys in opposite orders, each in its caller's
     * transaction, do not deadlock: every batch takes its keys in one order. Forced: two more
     * transactions hold keys x and y; the first batch waits at x, then the second waits (taken in the
     * order given: at y, holding b). Once both wait, the gates roll back. Taken in the order given,
     * the first batch then waited for b (the second's) and the second for a (the first's), and one
     * failed with a deadlock. Taken in key order, the second waits for the first at a.
     */
    @Test
    void twoKeyedBatchesInOppositeOrdersDoNotDeadlock() throws Exception {
        Skiplock client = client();
        javax.sql.DataSource pool = client.dataSource();
        try (java.sql.Connection gateX = pool.getConnection(); java.sql.Connection gateY = pool.getConnection();
                java.sql.Connection first = pool.getConnection(); java.sql.Connection second = pool.getConnection()) {
            for (java.sql.Connection connection : List.of(gateX, gateY, first, second)) {
                connection.setAutoCommit(false);
            }
            // Asked before the batches run: a connection busy with a waiting statement answers nothing else
            // (pgjdbc runs one statement at a time), so asked later, the test waited for its own gates.
            long firstPid = Jdbc.number(first, "SELECT pg_backend_pid()");
            long secondPid = Jdbc.number(second, "SELECT pg_backend_pid()");
            client.enqueue(gateX, keyed("x"));
            client.enqueue(gateY, keyed("y"));
            java.util.concurrent.ExecutorService batches = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                java.util.concurrent.Future<List<Job>> firstBatch = batches.submit(() -> enqueueAndCommit(client, first,
                        List.of(keyed("a"), keyed("x"), keyed("b"))));
                awaitWaitingForALock(pool, firstPid);
                java.util.concurrent.Future<List<Job>> secondBatch = batches.submit(() -> enqueueAndCommit(client, second,
                        List.of(keyed("b"), keyed("y"), keyed("a"))));
                awaitWaitingForALock(pool, secondPid);
                gateX.rollback();
                gateY.rollback();

                List<Job> firstJobs = firstBatch.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                List<Job> secondJobs = secondBatch.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                assertThat(secondJobs.get(0).id()).isEqualTo(firstJobs.get(2).id()); // b
                assertThat(secondJobs.get(2).id()).isEqualTo(firstJobs.get(0).id()); // a
                assertThat(Jdbc.query(pool, "SELECT unique_key FROM skiplock_jobs ORDER BY unique_key",
                        row -> row.getString(1))).containsExactly("a", "b", "x", "y");
            } finally {
                // A failed wait leaves the batches waiting for the gates: released first, the batches'
                // statements end and their connections close (a close waits for the statement running).
                gateX.rollback();
                gateY.rollback();
                batches.shutdown();
                batches.awaitTermination(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    private static JobRequest keyed(String key) {
        return JobRequest.of("keyed", null).withUniqueKey(key);
    }

    private static List<Job> enqueueAndCommit(Skiplock client, java.sql.Connection connection, List<JobRequest> batch)
            throws java.sql.SQLException {
        List<Job> jobs = client.enqueueMany(connection, batch);
        connection.commit();
        return jobs;
    }

    /** Waits until backend {@code pid} waits for a lock another transaction holds. */
    private static void awaitWaitingForALock(javax.sql.DataSource pool, long pid) {
        org.awaitility.Awaitility.await().atMost(WAIT).pollInterval(java.time.Duration.ofMillis(10))
                .until(() -> Jdbc.query(pool, "SELECT cardinality(pg_blocking_pids(" + pid + "))",
                        row -> row.getInt(1)).getFirst() > 0);
    }
}
