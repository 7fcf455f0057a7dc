package dev.skiplock.internal.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobContext;
import dev.skiplock.JobStateException;
import dev.skiplock.JobSuspendedException;
import dev.skiplock.Names;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.StorableText;
import dev.skiplock.internal.store.StepStore;
import dev.skiplock.internal.store.StepStore.Checkpoint;
import dev.skiplock.internal.store.StepStore.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The checkpoints of one execution (DESIGN §5, steps): {@link JobContext#step} runs a body once
 * per job, {@link JobContext#sleep} and {@link JobContext#awaitSignal} end the attempt while the
 * job waits. Where checkpoints live is the {@link Store}'s business: the database for a durable
 * job (fenced on the lease), the job's own memory for an in-memory one.
 */
public final class Steps {
    /** Where one job's checkpoints are kept. */
    interface Store {
        /** Every checkpoint of the job, by name. */
        Map<String, Checkpoint> load();

        /** Records a checkpoint with its event; says whether it was written, one of that name was there, or this execution may no longer write. */
        StepStore.Recorded record(String name, Kind kind, String outputJson, Long waitMillis, String eventStatus);

        /** A step event without a checkpoint (started, failed). */
        void event(String name, String status, String message);

        /** A delivered signal's payload; empty if none came. */
        Optional<JsonNode> signal(String name);
    }

    private final Execution execution;
    private final Store store;
    private final SkiplockConfig limits;
    private Map<String, Checkpoint> recorded;

    Steps(Execution execution, Store store, SkiplockConfig limits) {
        this.execution = execution;
        this.store = store;
        this.limits = limits;
    }

    /**
     * {@code value} as the JSON text a checkpoint or signal stores: storable in every database,
     * at most {@code maxBytes} in UTF-8.
     *
     * @throws IllegalArgumentException naming {@code field} if it cannot be written or is too large
     */
    public static String outputJson(String field, Object value, int maxBytes) {
        String json;
        try {
            json = Json.MAPPER.writeValueAsString(value instanceof JsonNode node ? StorableText.of(node) : value);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": cannot be written as JSON: " + e.getMessage(), e);
        }
        json = StorableText.of(json);
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            throw new IllegalArgumentException(field + ": " + bytes + " bytes of JSON, more than the limit of "
                    + maxBytes + " (maxStepOutputBytes)");
        }
        return json;
    }

    <T> T step(String name, Class<T> type, JobContext.StepBody<? extends T> body) throws Exception {
        String checked = Names.check("name", name);
        if (type == null || body == null) {
            throw new IllegalArgumentException((type == null ? "type" : "body") + ": is required");
        }
        Checkpoint done = existing(checked, Kind.STEP);
        if (done != null) {
            return Json.MAPPER.treeToValue(done.output(), type);
        }
        checkRoom(checked);
        call(() -> {
            store.event(checked, "started", null);
            return null;
        });
        Object value;
        try {
            value = body.run();
        } catch (Exception | Error e) {
            if (!(e instanceof JobSuspendedException)) {
                try {
                    call(() -> {
                        store.event(checked, "failed", Outcomes.truncate(Outcomes.describe(e)));
                        return null;
                    });
                } catch (RuntimeException eventLost) {
                    e.addSuppressed(eventLost); // the body's failure is the step's, not the event's
                }
            }
            throw e;
        }
        if (execution.suspended()) { // the body swallowed a wait: its value was made without it
            throw new JobSuspendedException("step " + checked + " began a wait; its output is not recorded",
                    execution.suspension().delay());
        }
        String json = outputJson("output of step " + checked, value, limits.maxStepOutputBytes());
        Checkpoint stored = record(checked, Kind.STEP, json, null, "succeeded");
        return Json.MAPPER.treeToValue(stored.output(), type);
    }

    /** The outputs of the finished steps, by name. */
    Map<String, JsonNode> finished() {
        Map<String, Checkpoint> checkpoints = recorded();
        Map<String, JsonNode> outputs = new java.util.LinkedHashMap<>();
        synchronized (this) {
            checkpoints.forEach((name, checkpoint) -> {
                if (checkpoint.kind() == Kind.STEP) {
                    outputs.put(name, checkpoint.output());
                }
            });
        }
        return outputs;
    }

    void sleep(String name, Duration duration) {
        String checked = Names.check("name", name);
        requireWait("duration", duration);
        Checkpoint started = existing(checked, Kind.SLEEP);
        if (started != null) {
            if (started.waitMillis() > 0) {
                suspend(checked, Duration.ofMillis(started.waitMillis()), null);
            }
            return;
        }
        startWait(checked, Kind.SLEEP, duration, null);
    }

    Optional<JsonNode> awaitSignal(String name, Duration timeout) {
        String checked = Names.check("name", name);
        requireWait("timeout", timeout);
        Checkpoint started = existing(checked, Kind.SIGNAL);
        if (started == null && timeout.isZero()) {
            // Over as soon as written: written first, then read by the rule its replays read by (a
            // signal sent after the wait ended does not count), so a signal delivered meanwhile
            // counts for this execution exactly as for a replay. Read first, it was missed here
            // and returned by the replay.
            startWait(checked, Kind.SIGNAL, timeout, checked);
            return call(() -> store.signal(checked));
        }
        Optional<JsonNode> payload = call(() -> store.signal(checked));
        if (payload.isPresent()) {
            return payload;
        }
        if (started != null) {
            if (started.waitMillis() > 0) {
                suspend(checked, Duration.ofMillis(started.waitMillis()), checked); // woken early, yet no signal
            }
            return Optional.empty(); // timed out
        }
        startWait(checked, Kind.SIGNAL, timeout, checked);
        return Optional.empty(); // not reached: the wait suspended the attempt
    }

    private void startWait(String name, Kind kind, Duration wait, String signal) {
        // Checked here, for a new wait only: one recorded before this limit (a longer wait that
        // PostgreSQL took) is replayed as it was.
        if (wait.compareTo(SkiplockConfig.MAX_DURATION) > 0) {
            throw new IllegalArgumentException((kind == Kind.SLEEP ? "duration" : "timeout")
                    + ": must be at most 36500 days (a century), got " + wait);
        }
        checkRoom(name);
        record(name, kind, null, wait.toMillis(), "waiting");
        if (!wait.isZero()) {
            suspend(name, wait, signal);
        }
    }

    private void suspend(String name, Duration wait, String signal) {
        execution.suspend(new Execution.Suspension(wait, signal));
        throw new JobSuspendedException((signal != null ? "waiting for signal " : "sleeping at ") + name + " for "
                + wait, wait);
    }

    /**
     * Records a checkpoint; returns it as stored. A checkpoint of that name found there while this
     * execution still holds the job (its own write whose commit answer was lost, then sent again, or
     * another thread's of its handler) is the stored one. One found by an execution that lost the
     * job is another execution's: taking it as its own, a stale execution would go on to the next
     * step and run its body again.
     */
    private Checkpoint record(String name, Kind kind, String json, Long waitMillis, String eventStatus) {
        StepStore.Recorded recorded = call(() -> store.record(name, kind, json, waitMillis, eventStatus));
        Checkpoint stored = switch (recorded.outcome()) {
            // as stored, not as sent: a replay reads the stored form, and must see the same value
            case WRITTEN -> new Checkpoint(name, kind, recorded.storedOutput() == null ? null
                    : Json.read(recorded.storedOutput()), waitMillis);
            case FOUND -> reload().get(name);
            case FENCED -> null;
        };
        if (stored == null) {
            throw new JobStateException("step " + name + " of job " + execution.job().id()
                    + " not recorded: this execution no longer holds the job's lease", execution.job());
        }
        Map<String, Checkpoint> checkpoints = recorded();
        synchronized (this) {
            checkpoints.put(name, stored);
        }
        return stored;
    }

    /** The checkpoint named {@code name} if it exists, refused if it is of another kind. */
    private Checkpoint existing(String name, Kind kind) {
        if (execution.suspended()) {
            throw new IllegalStateException("name: " + name + " comes after a sleep or signal wait that ended this attempt");
        }
        if (execution.isCommitting()) {
            throw new IllegalStateException("name: " + name + " comes after the job's completion in the handler's"
                    + " transaction (written, or failed and not yet ended); nothing more can be written for it until"
                    + " that transaction ends");
        }
        Map<String, Checkpoint> checkpoints = recorded();
        Checkpoint found;
        synchronized (this) {
            found = checkpoints.get(name);
        }
        if (found != null && found.kind() != kind) {
            throw new IllegalArgumentException("name: " + name + " is already a " + found.kind().wireName()
                    + " of this job, not a " + kind.wireName());
        }
        return found;
    }

    /**
     * The checkpoints, read once per execution; once there, the map stays this execution's for
     * good (steps may run on several threads of one handler; it is read and changed under this
     * object's lock). Read outside the lock: the read may wait out an outage, and a virtual thread
     * that waits holding a monitor holds its carrier on Java 21. Two threads that both find none
     * read both; the first one's stays.
     */
    private Map<String, Checkpoint> recorded() {
        synchronized (this) {
            if (recorded != null) {
                return recorded;
            }
        }
        Map<String, Checkpoint> loaded = new java.util.LinkedHashMap<>(call(store::load));
        synchronized (this) {
            if (recorded == null) {
                recorded = loaded;
            }
            return recorded;
        }
    }

    /**
     * One call of the store on the handler's behalf: sent again after a lost connection
     * ({@link HandlerCalls}), each sending with the execution's interrupts held back.
     */
    private <T> T call(java.util.function.Supplier<T> storeCall) {
        return HandlerCalls.retriedOnConnectionLoss(limits.leaseTtl(), execution::stopRequested,
                () -> execution.storeCall(storeCall));
    }

    /**
     * The checkpoints as stored now, merged into those this execution knows (each is written once,
     * under its name): a fresh map in its place could lose what another thread recorded meanwhile,
     * or be replaced by an older read still on its way.
     */
    private Map<String, Checkpoint> reload() {
        Map<String, Checkpoint> checkpoints = recorded();
        Map<String, Checkpoint> stored = call(store::load);
        synchronized (this) {
            checkpoints.putAll(stored);
        }
        return stored;
    }

    private void checkRoom(String name) {
        Map<String, Checkpoint> checkpoints = recorded();
        int count;
        synchronized (this) {
            count = checkpoints.size();
        }
        if (count >= limits.maxStepsPerJob()) {
            throw new IllegalStateException("maxStepsPerJob: job " + execution.job().id() + " already has "
                    + count + " checkpoints, the limit; " + name + " is refused");
        }
    }

    /** Zero or more; a new wait, also at most a century ({@link #startWait}: past PostgreSQL's interval range). */
    private static void requireWait(String field, Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException(field + ": must be zero or positive, got " + wait);
        }
    }
}
