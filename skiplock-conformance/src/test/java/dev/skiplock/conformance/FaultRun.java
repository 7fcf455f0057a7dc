package dev.skiplock.conformance;

import static org.awaitility.Awaitility.await;

import dev.skiplock.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Real {@code skiplock worker} processes under injected faults: SIGKILL, SIGSTOP past the lease
 * then SIGCONT, and database restarts, one every {@link FaultPlan.Faults#every()}; meanwhile every
 * connection of one proxied worker is cut every {@link FaultPlan.Faults#cutEvery()} (its
 * {@link FaultProxy} also drops claim answers). A supervisor restarts every worker that dies
 * (killed, or halted by a poison job), as a process manager would, in the same slot: with the
 * same proxy, or the same short retention.
 */
final class FaultRun implements AutoCloseable {
    /** Worker timings (WorkerProcess): how long a paused worker stays stopped — past its 2 s lease. */
    static final Duration PAUSE = Duration.ofMillis(3500);
    /** The cron schedule both schedulers run. */
    static final String CRON_NAME = "fault-cron";

    /**
     * One injected fault or observed death: {@code kill}, {@code pause}, {@code restart}, {@code cut}
     * (every connection of a proxied worker), {@code exit} (halted by a poison job) or
     * {@code start-failed} (a restarted worker found the database down).
     */
    record Fault(String type, long pid, long atMillis, long untilMillis) {
    }

    /** A claim's answer seen by the proxy of a worker process. */
    record ProxiedClaim(long pid, FaultProxy.Claim claim) {
    }

    /** Which worker process held a slot from when. */
    private record Tenure(int slot, long pid, long fromMillis) {
    }

    private final String url;
    private final Path runDir;
    private final Path logDir;
    private final FaultPlan plan;
    private final FaultPostgres postgres;
    private final Random random = new Random();
    private final List<Process> workers = new CopyOnWriteArrayList<>();
    private final List<Process> schedulers = new CopyOnWriteArrayList<>();
    private final Path cronConfig;
    private final Map<Integer, FaultProxy> proxies = new ConcurrentHashMap<>();
    private final List<Tenure> tenures = new CopyOnWriteArrayList<>();
    private final Map<Long, Path> logOf = new ConcurrentHashMap<>();
    private final List<Long> killedByUs = new CopyOnWriteArrayList<>();
    private final List<Long> paused = new CopyOnWriteArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<Long> allPids = new CopyOnWriteArrayList<>();
    /** How long {@link #close} waits for each harness thread to see the run ended (a fault takes seconds). */
    private static final Duration THREADS_END = Duration.ofMinutes(2);
    private final Thread supervisor;
    private final Thread chaos;
    private final Thread cutter;
    private volatile boolean running = true;
    /** False once the run's end began: a scheduler that exits is not started again. */
    private volatile boolean schedulersWanted = true;
    private int started;
    /** Why injecting the faults stopped short, if it did. */
    private volatile Throwable chaosFailure;
    /** {@link #state()} when the run was closed. */
    private volatile String stateAtClose;

    /**
     * Workers in slots {@code 0 .. retaining-1} keep finished jobs only the plan's retention; the
     * last {@code proxied} slots reach the database through a {@link FaultProxy} each.
     */
    FaultRun(String url, Path runDir, Path logDir, Path ledger, FaultPlan plan, FaultPostgres postgres) throws IOException {
        this.url = url;
        this.runDir = runDir;
        this.logDir = logDir;
        this.plan = plan;
        this.postgres = postgres;
        this.cronConfig = Files.writeString(logDir.resolveSibling("cron.json"), Json.write(Map.of("cron", List.of(Map.of(
                "name", CRON_NAME, "schedule", FaultPlan.Workers.CRON_SCHEDULE, "job", Map.of("kind", "fault.cron",
                        "args", new FaultHandlers.Args(ledger.toString(), 20), "maxAttempts", 10))))));
        FaultPlan.Workers slots = plan.workers();
        for (int slot = slots.count() - slots.proxied(); slot < slots.count(); slot++) {
            var server = FaultProxy.serverOf(url);
            proxies.put(slot, new FaultProxy(server.getHostString(), server.getPort(), plan.faults().claimCutEvery()));
        }
        this.supervisor = Thread.ofPlatform().name("fault-supervisor").unstarted(this::supervise);
        this.chaos = Thread.ofPlatform().name("fault-chaos").uncaughtExceptionHandler((thread, e) -> {
            chaosFailure = e;
            e.printStackTrace();
        })
                .unstarted(this::injectFaults);
        this.cutter = Thread.ofPlatform().name("fault-cutter").unstarted(this::cutConnections);
    }

    void start() throws IOException {
        for (int slot = 0; slot < plan.workers().count(); slot++) {
            workers.add(startWorker(slot));
        }
        for (int i = 0; i < plan.workers().schedulers(); i++) {
            schedulers.add(startScheduler());
        }
        supervisor.start();
    }

    /** Starts injecting the plan's faults, in random order, on their own thread (and the cuts on another). */
    void startFaults() {
        chaos.start();
        if (!proxies.isEmpty()) {
            cutter.start();
        }
    }

    /** Every claim answer the proxies saw, with the worker process that sent the claim. */
    List<ProxiedClaim> proxiedClaims() {
        List<ProxiedClaim> claims = new ArrayList<>();
        proxies.forEach((slot, proxy) -> proxy.claims()
                .forEach(claim -> claims.add(new ProxiedClaim(holderOf(slot, claim.sentAtMillis()), claim))));
        return claims;
    }

    /** The worker process in {@code slot} at {@code atMillis}. */
    private long holderOf(int slot, long atMillis) {
        return tenures.stream().filter(tenure -> tenure.slot() == slot && tenure.fromMillis() <= atMillis)
                .reduce((earlier, later) -> later).map(Tenure::pid).orElse(-1L);
    }

    boolean faultsDone() {
        return !chaos.isAlive();
    }

    /**
     * What the run still waited for when it was closed, or why its faults stopped short: for the
     * report of a run that did not end.
     */
    String pending() {
        return stateAtClose != null ? stateAtClose : state();
    }

    private String state() {
        Map<String, Long> made = new TreeMap<>();
        faults.forEach(fault -> made.merge(fault.type(), 1L, Long::sum));
        return "faults made " + made + "; " + (chaos.isAlive() ? "faults still being injected; " : "")
                + (chaosFailure != null ? "injecting faults failed: " + chaosFailure + " (cause: " + chaosFailure.getCause() + "); " : "")
                + (paused.isEmpty() ? "" : "processes still paused: " + paused + "; ");
    }

    /** The failure that stopped the faults short, or null. */
    Throwable chaosFailure() {
        return chaosFailure;
    }

    List<Fault> faults() {
        return List.copyOf(faults);
    }

    List<Long> workerPids() {
        return List.copyOf(allPids);
    }

    /** Every line each process (worker or scheduler) logged, by pid. */
    Map<Long, List<String>> logLinesByPid() throws IOException {
        Map<Long, List<String>> lines = new TreeMap<>();
        for (Map.Entry<Long, Path> log : logOf.entrySet()) {
            lines.put(log.getKey(), Files.readAllLines(log.getValue()));
        }
        return lines;
    }

    private Process startWorker(int slot) throws IOException {
        String logConfig = FaultRun.class.getResource("/logback-faults.xml").toString();
        Path log = logDir.resolve("worker-" + (started++) + ".log");
        List<String> options = new ArrayList<>(List.of("--run-dir", runDir.toString(),
                "--concurrency", Integer.toString(plan.workers().concurrency())));
        if (slot < plan.workers().retaining()) {
            options.addAll(List.of("--retention", plan.workers().retention().toMillis() + "ms",
                    "--prune-interval", plan.workers().pruneInterval().toMillis() + "ms"));
        }
        FaultProxy proxy = proxies.get(slot);
        Process process = WorkerProcess.start(List.of("-Dlogback.configurationFile=" + logConfig),
                proxy == null ? url : proxy.url(url), ProcessBuilder.Redirect.appendTo(log.toFile()),
                options.toArray(String[]::new));
        tenures.add(new Tenure(slot, process.pid(), System.currentTimeMillis()));
        allPids.add(process.pid());
        logOf.put(process.pid(), log);
        return process;
    }

    /** {@code skiplock serve} with no workers and the cron schedule of this run: a second one races it for every slot. */
    private Process startScheduler() throws IOException {
        String logConfig = FaultRun.class.getResource("/logback-faults.xml").toString();
        Path log = logDir.resolve("scheduler-" + (started++) + ".log");
        Process process = WorkerProcess.start(List.of("-Dlogback.configurationFile=" + logConfig), "serve", url,
                ProcessBuilder.Redirect.appendTo(log.toFile()), "--port", "0", "--concurrency", "0",
                "--config", cronConfig.toString());
        logOf.put(process.pid(), log);
        return process;
    }

    /** Started and working: it printed its banner. A fault must hit a working process, not a booting JVM. */
    private boolean isWorking(Process worker) {
        try {
            String log = Files.readString(logOf.get(worker.pid()));
            return worker.isAlive() && !paused.contains(worker.pid())
                    && (log.contains("skiplock worker ") || log.contains("skiplock serving on"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void supervise() {
        while (running) {
            for (Process scheduler : schedulers) {
                if (!scheduler.isAlive() && running && schedulersWanted) {
                    if (!killedByUs.contains(scheduler.pid())) {
                        long now = System.currentTimeMillis();
                        faults.add(new Fault("scheduler-start-failed", scheduler.pid(), now, now));
                    }
                    try {
                        schedulers.set(schedulers.indexOf(scheduler), startScheduler());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            for (Process worker : workers) {
                if (!worker.isAlive() && running) {
                    if (!killedByUs.contains(worker.pid())) {
                        // halted by a poison job; otherwise it could not start (the database was restarting)
                        String type = worker.exitValue() == FaultHandlers.HALT_STATUS ? "exit" : "start-failed";
                        faults.add(new Fault(type, worker.pid(), System.currentTimeMillis(), System.currentTimeMillis()));
                    }
                    try {
                        int slot = workers.indexOf(worker);
                        workers.set(slot, startWorker(slot));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            sleep(200); // a process manager's polling: this loop is the supervisor, not a wait in a test
        }
    }

    private void injectFaults() {
        List<String> plannedFaults = new ArrayList<>();
        plannedFaults.addAll(Collections.nCopies(plan.faults().kills(), "kill"));
        plannedFaults.addAll(Collections.nCopies(plan.faults().pauses(), "pause"));
        plannedFaults.addAll(Collections.nCopies(plan.faults().databaseRestarts(), "restart"));
        plannedFaults.addAll(Collections.nCopies(plan.faults().schedulerKills(), "scheduler-kill"));
        plannedFaults.addAll(Collections.nCopies(plan.faults().schedulerPauses(), "scheduler-pause"));
        Collections.shuffle(plannedFaults, random);
        // Every worker up before the first fault.
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                .until(() -> !running || workers.stream().filter(this::isWorking).count() >= plan.workers().count()
                        && schedulers.stream().filter(this::isWorking).count() >= plan.workers().schedulers());
        try {
            List<Pause> pauses = new ArrayList<>();
            for (String fault : plannedFaults) {
                sleep(plan.faults().every().toMillis()); // the pacing of faults is what the run injects
                if (!running) {
                    return;
                }
                switch (fault) {
                    case "kill" -> kill(workers, "kill");
                    case "pause" -> pauses.add(pause(workers, "pause"));
                    case "scheduler-kill" -> kill(schedulers, fault);
                    case "scheduler-pause" -> pauses.add(pause(schedulers, fault));
                    case "restart" -> restartDatabase();
                    default -> throw new IllegalStateException(fault);
                }
            }
            // A pause whose process was gone by its SIGCONT did not happen (it was halting as the
            // SIGSTOP came): paused again, elsewhere. Its failed SIGCONT used to leave the run waiting
            // for the pause to end, the likeliest cause of a CI run that did not end.
            for (int i = 0; i < pauses.size(); i++) {
                if (!pauses.get(i).resumed().get() && running) {
                    sleep(plan.faults().every().toMillis()); // the pacing of faults, as above
                    pauses.add(pause(pauses.get(i).processes(), pauses.get(i).type()));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("injecting a fault failed", e);
        }
    }

    /** A pause under way: true once its process was resumed, false if it was gone by then. */
    private record Pause(List<Process> processes, String type, Future<Boolean> resumed) {
    }

    private Process pick(List<Process> processes) {
        List<Process> candidates = await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                .until(() -> processes.stream().filter(this::isWorking).toList(), found -> !found.isEmpty());
        return candidates.get(random.nextInt(candidates.size()));
    }

    /** While the faults run: every connection of one working proxied worker cut, every cutEvery. */
    private void cutConnections() {
        List<Integer> slots = List.copyOf(proxies.keySet());
        while (running && chaos.isAlive()) {
            sleep(plan.faults().cutEvery().toMillis()); // the pacing of cuts is what the run injects
            int slot = slots.get(random.nextInt(slots.size()));
            Process worker = workers.get(slot);
            if (running && isWorking(worker)) {
                long at = System.currentTimeMillis();
                proxies.get(slot).cutAll();
                faults.add(new Fault("cut", worker.pid(), at, at));
            }
        }
    }

    /**
     * SIGKILLs a working process of {@code processes}. One that halted on its own (a poison job) as
     * it was picked is recorded as such, and another is picked.
     */
    private void kill(List<Process> processes, String type) throws InterruptedException {
        while (true) {
            Process victim = pick(processes);
            killedByUs.add(victim.pid());
            long at = System.currentTimeMillis();
            victim.destroyForcibly();
            victim.waitFor(30, TimeUnit.SECONDS);
            if (!victim.isAlive() && victim.exitValue() == FaultHandlers.HALT_STATUS) {
                // the supervisor records no death of a process we killed, unless it saw it before we picked it
                if (faults.stream().noneMatch(fault -> fault.type().equals("exit") && fault.pid() == victim.pid())) {
                    faults.add(new Fault("exit", victim.pid(), at, at));
                }
                continue;
            }
            faults.add(new Fault(type, victim.pid(), at, at));
            return;
        }
    }

    /**
     * SIGSTOPs a working process of {@code processes}, and SIGCONTs it {@link #PAUSE} later on a
     * thread of its own; the pause is recorded then. A process gone before its SIGSTOP (halted by a
     * poison job as it was picked) is passed over for another; one gone by its SIGCONT makes the
     * pause's outcome false.
     */
    private Pause pause(List<Process> processes, String type) throws Exception {
        while (true) {
            Process victim = pick(processes);
            paused.add(victim.pid());
            long at = System.currentTimeMillis();
            boolean stopped;
            try {
                stopped = signalUnlessGone(victim, "STOP");
            } catch (Exception | Error e) {
                paused.remove(victim.pid()); // not paused: the run must not wait for its end
                throw e;
            }
            if (!stopped) {
                paused.remove(victim.pid());
                continue;
            }
            CompletableFuture<Boolean> resumed = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    sleep(PAUSE.toMillis()); // the pause itself is the fault: stopped past the lease
                    boolean alive = signalUnlessGone(victim, "CONT");
                    if (alive) {
                        faults.add(new Fault(type, victim.pid(), at, System.currentTimeMillis()));
                    }
                    resumed.complete(alive);
                } catch (Exception | Error e) {
                    resumed.completeExceptionally(e);
                } finally {
                    paused.remove(victim.pid()); // after recording it: close() waits for this list to empty
                }
            });
            return new Pause(processes, type, resumed);
        }
    }

    /** Sends {@code signal}; false if the process is gone (kill found no such process). */
    private static boolean signalUnlessGone(Process process, String signal) throws IOException, InterruptedException {
        try {
            WorkerProcess.signal(process.toHandle(), signal);
            return true;
        } catch (IllegalStateException e) {
            // isAlive() turns false only once the JDK reaped the process, a moment after kill no longer finds it
            if (process.waitFor(1, TimeUnit.SECONDS)) {
                return false;
            }
            throw e;
        }
    }

    private void restartDatabase() throws Exception {
        long at = System.currentTimeMillis();
        postgres.restart();
        faults.add(new Fault("restart", 0, at, System.currentTimeMillis()));
    }

    /**
     * Stops the cron schedulers (SIGTERM, once no process is paused): a slot that fired after the
     * harness's last look at the tables would otherwise enqueue a job no worker is left to run.
     */
    void stopSchedulers() throws InterruptedException {
        schedulersWanted = false;
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(paused::isEmpty);
        for (Process scheduler : schedulers) {
            scheduler.destroy();
        }
        for (Process scheduler : schedulers) {
            if (!scheduler.waitFor(30, TimeUnit.SECONDS)) {
                scheduler.destroyForcibly();
            }
        }
    }

    /** Stops injecting, resumes paused workers, and stops every worker gracefully (SIGTERM). */
    @Override
    public void close() throws InterruptedException {
        stateAtClose = state();
        running = false;
        List<String> stuck = new ArrayList<>();
        for (Thread thread : List.of(chaos, cutter, supervisor)) {
            // bounded: a harness thread that does not end fails the run, after its processes are
            // stopped (one the run never started, as the cutter on SQLite, has nothing to end)
            if (thread.getState() != Thread.State.NEW && !thread.join(THREADS_END)) {
                stuck.add(thread.getName() + " at " + List.of(thread.getStackTrace()));
                thread.interrupt();
            }
        }
        ConditionTimeoutException stillPaused = null;
        try {
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(paused::isEmpty);
        } catch (ConditionTimeoutException e) {
            stillPaused = e; // thrown once every process is stopped: none outlives the run
        }
        List<Process> all = new ArrayList<>(workers);
        all.addAll(schedulers);
        for (Process process : all) {
            process.destroy();
        }
        for (Process process : all) {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        for (FaultProxy proxy : proxies.values()) {
            try {
                proxy.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (!stuck.isEmpty()) {
            throw new IllegalStateException("harness threads still running " + THREADS_END + " after the run ended: " + stuck);
        }
        if (stillPaused != null) {
            throw stillPaused;
        }
    }

    /** The harness's own pacing (supervisor polling, fault spacing, the pause): each caller says why. */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis); // the pacing is what is under test, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
