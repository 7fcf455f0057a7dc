package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobOutcome;
import dev.skiplock.Skiplock;
import dev.skiplock.WorkerInfo;
import dev.skiplock.internal.store.WorkerStore;
import dev.skiplock.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The worker registry (DESIGN §5): each worker instance's row, its status by its heartbeats, the
 * list's order, and retention of the rows of workers stopped or silent.
 */
abstract class WorkerRegistryContract extends ContractBase {
    record Work(int n) {
    }

    @Test
    void workerRegistryShowsRunningAndStoppedWorkers() {
        Skiplock worker = started(builder(config -> config.queue("default", 3).queue("mail", 2))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock client = client();

        WorkerInfo info = client.workers().stream()
                .filter(candidate -> candidate.id().equals(worker.config().workerId())).findFirst().orElseThrow();
        assertThat(info.status()).isEqualTo("active");
        assertThat(info.queues()).containsExactly("default", "mail");
        assertThat(info.concurrency()).isEqualTo(5);
        assertThat(info.pid()).isEqualTo(ProcessHandle.current().pid());

        worker.close();
        assertThat(client.workers()).filteredOn(candidate -> candidate.id().equals(worker.config().workerId()))
                .extracting(WorkerInfo::status).containsExactly("stopped");
    }

    /**
     * 499 workers stopped and one crashed, all started after a running one: the list (500 rows at
     * most) shows the running one first, then the stale one. Newest first, the running one was the
     * 501st and missing, and so it was to the check for queues no live worker serves and to the
     * gauge of workers by status.
     */
    @Test
    void aRunningWorkerIsListedFirstHoweverManyWorkersStoppedOrCrashedSinceItStarted() throws Exception {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock client = client();
        WorkerStore registry = registry(client);
        for (int i = 0; i < 499; i++) {
            registry.registerWorker("gone-" + i, "host-1", 1, List.of("default"), 1);
        }
        Jdbc.update(client.dataSource(), "UPDATE skiplock_workers SET stopped_at = last_heartbeat_at WHERE id LIKE 'gone-%'");
        registry.registerWorker("crashed", "host-1", 1, List.of("default"), 1);
        setTimes(client, "crashed", Instant.now().minus(Duration.ofMinutes(1)), null);

        List<WorkerInfo> listed = client.workers();
        assertThat(listed).hasSize(500);
        assertThat(listed.get(0).id()).isEqualTo(worker.config().workerId());
        assertThat(listed.get(0).status()).isEqualTo("active");
        assertThat(listed.get(1).id()).isEqualTo("crashed");
        assertThat(listed.get(1).status()).isEqualTo("stale");
        assertThat(listed.subList(2, 500)).extracting(WorkerInfo::status).containsOnly("stopped");
    }

    /**
     * A running worker's retention (1 s: the registry keeps rows a day at least) deletes the rows
     * of workers stopped or silent for two days, and keeps those stopped or silent for two hours,
     * and its own.
     */
    @Test
    void retentionDeletesTheRowsOfWorkersStoppedOrSilentForLongerThanADay() throws Exception {
        Skiplock client = client();
        WorkerStore registry = registry(client);
        Instant twoDaysAgo = Instant.now().minus(Duration.ofDays(2));
        Instant twoHoursAgo = Instant.now().minus(Duration.ofHours(2));
        for (String id : List.of("stopped-2d", "silent-2d", "stopped-2h", "silent-2h")) {
            registry.registerWorker(id, "host-1", 1, List.of("default"), 1);
        }
        setTimes(client, "stopped-2d", twoDaysAgo, twoDaysAgo);
        setTimes(client, "silent-2d", twoDaysAgo, null);
        setTimes(client, "stopped-2h", twoDaysAgo, twoHoursAgo);
        setTimes(client, "silent-2h", twoHoursAgo, null);

        Skiplock worker = started(builder(config -> config.queue("default", 1).retention(Duration.ofSeconds(1))
                .pruneInterval(Duration.ofMillis(100))).handler("work", Work.class, context -> JobOutcome.complete()));
        Set<String> kept = Set.of(worker.config().workerId(), "stopped-2h", "silent-2h");
        await().atMost(WAIT).until(() -> listedIds(client).equals(kept));
    }

    /** A worker whose row was deleted (silent for a day and more, then back) registers again at its next heartbeat. */
    @Test
    void aWorkerWhoseRowWasDeletedRegistersAgainAtItsNextHeartbeat() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock client = client();
        String id = worker.config().workerId();
        assertThat(Jdbc.update(client.dataSource(), "DELETE FROM skiplock_workers WHERE id = ?", id)).isEqualTo(1);

        await().atMost(WAIT).until(() -> client.workers().stream()
                .anyMatch(info -> info.id().equals(id) && info.status().equals("active")));
    }

    private static WorkerStore registry(Skiplock client) {
        return new WorkerStore(client.dataSource(), FastPathContract.driver(client));
    }

    private static Set<String> listedIds(Skiplock client) {
        return client.workers().stream().map(WorkerInfo::id).collect(Collectors.toSet());
    }

    /** Sets a registry row's last heartbeat and stop (null: not stopped), as the database stores them. */
    private static void setTimes(Skiplock client, String id, Instant heartbeat, Instant stopped) throws SQLException {
        Dialect dialect = FastPathContract.driver(client).dialect();
        try (Connection connection = client.dataSource().getConnection();
                PreparedStatement update = connection.prepareStatement(
                        "UPDATE skiplock_workers SET last_heartbeat_at = ?, stopped_at = ? WHERE id = ?")) {
            dialect.setInstant(update, 1, heartbeat);
            dialect.setInstant(update, 2, stopped);
            update.setString(3, id);
            assertThat(update.executeUpdate()).as("rows of worker %s", id).isEqualTo(1);
        }
    }
}
