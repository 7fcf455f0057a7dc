package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobOutcome;
import dev.skiplock.Skiplock;
import dev.skiplock.WorkerInfo;
import dev.skiplock.internal.store.WorkerStore;
import dev.skiplock.spi.Dialect;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
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
     * A worker id given again (a fixed id, a restarted pod) to an instance that serves other queues:
     * its row says what the new instance serves. Before, the row kept the old queues, host and pid,
     * so adoption kept a dead instance's command jobs of those queues for a host that no longer
     * served them (registry reviewer).
     */
    @Test
    void aWorkerIdGivenAgainDescribesTheNewInstance() {
        Skiplock first = started(builder(config -> config.workerId("fixed").queue("builds", 2))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        first.close();
        Skiplock second = started(builder(config -> config.workerId("fixed").queue("deploys", 3))
                .handler("work", Work.class, context -> JobOutcome.complete()));

        WorkerInfo info = second.workers().stream().filter(candidate -> candidate.id().equals("fixed"))
                .findFirst().orElseThrow();
        assertThat(info.status()).isEqualTo("active");
        assertThat(info.queues()).containsExactly("deploys");
        assertThat(info.concurrency()).isEqualTo(3);
    }

    /**
     * A worker id given to a new instance on another host while the old one still closes: the old
     * one's stop leaves the new one's row alone. Before, it marked the new instance stopped for good
     * (its heartbeats do not clear a stop), so adoption took its host for one with no live worker.
     */
    @Test
    void anOldInstancesStopLeavesTheRowOfTheNewInstanceOfItsId() {
        Skiplock old = started(builder(config -> config.workerId("fixed").hostId("host-a").queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock replacement = started(builder(config -> config.workerId("fixed").hostId("host-b").queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        old.close();

        WorkerInfo info = replacement.workers().stream().filter(candidate -> candidate.id().equals("fixed"))
                .findFirst().orElseThrow();
        assertThat(info.host()).isEqualTo("host-b");
        assertThat(info.status()).isEqualTo("active");
        replacement.close();
        assertThat(client().workers()).filteredOn(candidate -> candidate.id().equals("fixed"))
                .extracting(WorkerInfo::status).containsExactly("stopped");
    }

    /**
     * A worker of a host is alive, for adopting that host's command jobs, by its own lease: one with
     * a 2 min lease last heard 40 s ago keeps its host's orphan from an adopter whose lease is 30 s;
     * once silent past its own lease, it does not. Before, the adopter judged every worker by its
     * own 30 s, took the job, found no run on its host, and ran it again while the command went on
     * (reaper reviewer).
     */
    @Test
    void aHostsWorkerIsAliveForAdoptionByItsOwnLease() throws Exception {
        Skiplock client = client();
        WorkerStore registry = new WorkerStore(client.dataSource(), FastPathContract.driver(client));
        dev.skiplock.internal.store.JobStore store = new dev.skiplock.internal.store.JobStore(client.dataSource(),
                FastPathContract.driver(client));
        registry.registerWorker("slow-heart", "dead-host", 1, List.of("builds"), 1, 120_000);
        dev.skiplock.Job orphan = client.enqueue(dev.skiplock.JobRequest.of("command", new Work(1)).withQueue("builds"));
        database.makeOrphan(client.dataSource(), orphan.id(), "builds");
        dev.skiplock.internal.store.ClaimParams adopter = new dev.skiplock.internal.store.ClaimParams("builds",
                "adopter", "host-b", java.util.UUID.randomUUID(), 30_000, "[]");

        setTimes(client, "slow-heart", Instant.now().minusSeconds(40), null);
        assertThat(store.adoptOrphans(adopter, 30_000, 10)).isEmpty();

        setTimes(client, "slow-heart", Instant.now().minusSeconds(180), null);
        assertThat(store.adoptOrphans(adopter, 30_000, 10)).extracting(claimed -> claimed.job().id())
                .containsExactly(orphan.id());
    }

    /**
     * A worker is stale once silent past its own lease, as adoption judges it, whatever the
     * heartbeat of the instance that looks: one with a 2 min lease last heard 40 s ago is active,
     * one with a 30 s lease is stale. Before, the viewer's three heartbeats decided (here 1.5 s), so
     * instances configured apart told different statuses of one worker, and the queues of a live
     * one counted as unserved.
     */
    @Test
    void aWorkerIsStaleOnceSilentPastItsOwnLease() throws Exception {
        Skiplock client = client();
        WorkerStore registry = new WorkerStore(client.dataSource(), FastPathContract.driver(client));
        registry.registerWorker("slow-heart", "host-a", 1, List.of("builds"), 1, 120_000);
        registry.registerWorker("quick-heart", "host-a", 2, List.of("builds"), 1, 30_000);
        setTimes(client, "slow-heart", Instant.now().minusSeconds(40), null);
        setTimes(client, "quick-heart", Instant.now().minusSeconds(40), null);

        assertThat(client.workers()).filteredOn(worker -> worker.id().endsWith("-heart"))
                .extracting(WorkerInfo::id, WorkerInfo::status)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("slow-heart", "active"),
                        org.assertj.core.groups.Tuple.tuple("quick-heart", "stale"));
        assertThat(registry.countWorkers(500)).containsEntry("active", 1L).containsEntry("stale", 1L);
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
        // The reader's heartbeat interval decides who is stale: 10 s (stale after 30), so a heartbeat
        // of the worker (every 500 ms) that the 500 writes below hold up cannot make it stale.
        Skiplock client = track(builder(config -> config.heartbeatInterval(Duration.ofSeconds(10))
                .leaseTtl(Duration.ofSeconds(30))).build());
        WorkerStore registry = registry(client);
        for (int i = 0; i < 499; i++) {
            registry.registerWorker("gone-" + i, "host-1", 1, List.of("default"), 1, 30_000);
        }
        Jdbc.update(client.dataSource(), "UPDATE skiplock_workers SET stopped_at = last_heartbeat_at WHERE id LIKE 'gone-%'");
        registry.registerWorker("crashed", "host-1", 1, List.of("default"), 1, 30_000);
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
            registry.registerWorker(id, "host-1", 1, List.of("default"), 1, 30_000);
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

    /**
     * Forced: a heartbeat finds the worker's row deleted and is about to register it again when the
     * worker closes. The close waits for that registration, then marks the row stopped. Before the
     * lock between the two, the close marked no row (there was none yet) and the registration then
     * wrote a live one: a closed worker listed as running, then stale, for a day (this test failed so
     * on both databases).
     */
    @Test
    void aWorkerClosingWhileItsHeartbeatRegistersItAgainEndsStopped() throws Exception {
        Skiplock client = client();
        AtomicInteger registrations = new AtomicInteger();
        CountDownLatch registering = new CountDownLatch(1);
        CountDownLatch mayRegister = new CountDownLatch(1);
        CountDownLatch registered = new CountDownLatch(1);
        DataSource pausing = pausingStatements(client.dataSource(), "INSERT INTO skiplock_workers", run -> {
            boolean again = registrations.incrementAndGet() == 2; // the first is the start's
            if (again) {
                registering.countDown();
                awaitIgnoringInterrupts(mayRegister);
            }
            run.run();
            if (again) {
                registered.countDown();
            }
        });
        Skiplock worker = track(Skiplock.builder().dataSource(pausing).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, context -> JobOutcome.complete()).build()).start();
        String id = worker.config().workerId();
        assertThat(Jdbc.update(client.dataSource(), "DELETE FROM skiplock_workers WHERE id = ?", id)).isEqualTo(1);
        assertThat(registering.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the heartbeat registers again").isTrue();

        Thread closer = new Thread(worker::close, "closer");
        try {
            closer.start();
            await().atMost(WAIT).until(() -> !closer.isAlive() || stoppingTheWorker(closer));
        } finally {
            mayRegister.countDown();
        }
        closer.join(WAIT.toMillis());
        assertThat(registered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(client.workers()).filteredOn(info -> info.id().equals(id)).extracting(WorkerInfo::status)
                .containsExactly("stopped");
    }

    /** Whether {@code thread} is in the engine's call that marks its worker stopped (waiting for the heartbeat). */
    private static boolean stoppingTheWorker(Thread thread) {
        return Arrays.stream(thread.getStackTrace()).anyMatch(frame -> frame.getMethodName().equals("stopWorker")
                && frame.getClassName().endsWith(".LeaseKeeper"));
    }

    /** What runs a paused statement: the test's code around {@code run.run()}, which executes it. */
    @FunctionalInterface
    interface Around {
        void execute(Runnable run) throws Exception;
    }

    /** {@code target} whose statements starting with {@code prefix} execute through {@code around}. */
    private static DataSource pausingStatements(DataSource target, String prefix, Around around) {
        return proxy(DataSource.class, target, (method, args, call) -> {
            Object result = call.call();
            if (!method.getName().equals("getConnection")) {
                return result;
            }
            return proxy(Connection.class, (Connection) result, (connectionMethod, connectionArgs, connectionCall) -> {
                Object prepared = connectionCall.call();
                if (!connectionMethod.getName().equals("prepareStatement") || !((String) connectionArgs[0]).startsWith(prefix)) {
                    return prepared;
                }
                return proxy(PreparedStatement.class, (PreparedStatement) prepared, (statementMethod, statementArgs, statementCall) -> {
                    if (!statementMethod.getName().startsWith("execute")) {
                        return statementCall.call();
                    }
                    Object[] answer = new Object[1];
                    around.execute(() -> {
                        try {
                            answer[0] = statementCall.call();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    return answer[0];
                });
            });
        });
    }

    /** A call on a proxy: its method, its arguments, and the call of the target. */
    @FunctionalInterface
    private interface Intercept {
        Object on(Method method, Object[] args, Callable<Object> call) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, Intercept intercept) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> intercept.on(method, args, () -> {
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause() instanceof Exception cause ? cause : new IllegalStateException(e.getCause());
                    }
                })));
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
