package dev.skiplock.conformance;

import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobStateException;
import dev.skiplock.Skiplock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The harness's own client while the workers run and faults hit them: it calls {@code retry} on
 * the oldest finished jobs and {@code cancel} on running ones through the public API (racing the
 * workers, retention — which deletes those same jobs next — and the faults), and watches for a job {@code waiting} although all its dependencies
 * succeeded. One thread; every call and sighting is recorded for the analysis.
 */
final class FaultClient implements AutoCloseable {
    /** A call and what came of it: {@code done}, {@code refused} (not in a state for it) or {@code gone} (deleted). */
    record Call(String type, String jobId, long atMillis, String result) {
        boolean done() {
            return result.equals("done");
        }
    }

    /** A waiting job seen with every dependency succeeded: first and last time. */
    record Sighting(String jobId, long firstMillis, long lastMillis) {
    }

    /** Time between two looks for waiting jobs. */
    private static final Duration WATCH_EVERY = Duration.ofMillis(250);

    private final Skiplock client;
    private final FaultTables tables;
    private final FaultPlan.Faults plan;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Sighting> sightings = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    FaultClient(Skiplock client, FaultTables tables, FaultPlan.Faults plan) {
        this.client = client;
        this.tables = tables;
        this.plan = plan;
        this.thread = Thread.ofPlatform().name("fault-client").unstarted(this::loop);
    }

    void start() {
        thread.start();
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    List<Sighting> sightings() {
        return List.copyOf(sightings.values());
    }

    /** Every planned call made (the analysis waits for this before it ends the run). */
    boolean done() {
        return count("retry") >= plan.retries() && count("cancel") >= plan.cancels();
    }

    /** The planned calls not made yet, for the report of a run that did not end. */
    String pending() {
        return "retries " + count("retry") + " of " + plan.retries() + ", cancels " + count("cancel") + " of "
                + plan.cancels() + " made; ";
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(java.time.Duration.ofMinutes(1));
    }

    /** Spreads the calls over the fault window: a retry and a cancel every window / planned calls. */
    private void loop() {
        long callEvery = plan.window().toMillis() / Math.max(1, Math.max(plan.retries(), plan.cancels()));
        long nextCall = System.currentTimeMillis();
        while (running) {
            try {
                watch();
                if (System.currentTimeMillis() >= nextCall) {
                    nextCall += callEvery;
                    if (count("retry") < plan.retries()) {
                        tables.oldestFinishedWork(1).forEach(id -> call("retry", id));
                    }
                    if (count("cancel") < plan.cancels()) {
                        tables.someRunningWork(1).forEach(id -> call("cancel", id));
                    }
                }
            } catch (RuntimeException e) {
                // the database may be restarting: the next round tries again
            }
            try {
                Thread.sleep(WATCH_EVERY.toMillis()); // the pacing of the calls, not a wait for a condition
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void watch() {
        long now = System.currentTimeMillis();
        for (String id : tables.waitingWithDependenciesSucceeded()) {
            sightings.merge(id, new Sighting(id, now, now),
                    (seen, again) -> new Sighting(id, seen.firstMillis(), again.lastMillis()));
        }
    }

    /** Counts only calls that reached a job: a job gone or in the wrong state is picked again. */
    private long count(String type) {
        return calls.stream().filter(call -> call.type().equals(type) && call.done()).count();
    }

    private void call(String type, String id) {
        long at = System.currentTimeMillis();
        String result;
        try {
            if (type.equals("retry")) {
                client.retry(UUID.fromString(id));
            } else {
                client.cancel(UUID.fromString(id));
            }
            result = "done";
        } catch (JobNotFoundException e) {
            result = "gone";
        } catch (JobStateException e) {
            result = "refused";
        }
        calls.add(new Call(type, id, at, result));
    }
}
