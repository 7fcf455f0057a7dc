package dev.skiplock;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a handler sees of its job: the typed args and the job row as claimed.
 *
 * @param <A> the args type registered with the handler
 */
public interface JobContext<A> {
    /** The job's args, read into the handler's args type. */
    A args();

    /** The job as it was when this attempt was claimed ({@code status} is {@code running}). */
    Job job();

    /** This attempt's number, 1 for the first run. */
    default int attempt() {
        return job().attempt();
    }

    /**
     * Identifies this execution: the token of the claim that started it, the same for the worker
     * that started it and every worker that adopts it, and never reused, not even by a claim that
     * a database crash lost and that was made again. A {@link ResumableHandler} names what it
     * keeps for adoption after it (a command's run directory).
     */
    UUID executionId();

    /** True once Skiplock asked this execution to stop (cancel, timeout, lost lease, shutdown). */
    boolean stopRequested();

    /**
     * True once this execution was stopped because its lease was lost (its worker was presumed dead
     * and the job reaped): another worker may adopt the same attempt, so an execution that outlives
     * its worker (a {@link ResumableHandler}'s process) must be left running, not killed.
     */
    default boolean leaseLost() {
        return false;
    }

    /**
     * After this execution lost its lease: whether another worker may still adopt and resume it
     * (the job is running and still names this execution). False once none ever will: the job was
     * retried or finished elsewhere, or the claim that started this execution was lost in a
     * database crash and the job claimed again. Reads the database; true when it cannot tell.
     */
    default boolean mayBeResumed() {
        return true;
    }

    /**
     * How many {@code log} lines of this attempt are already recorded for {@code stream}: a
     * {@link ResumableHandler} resuming another worker's execution continues its output after them.
     * Precisely, the place after the last recorded line (lines are numbered 0, 1, ... in their
     * stream), which is their count unless a line could not be stored at all; the lines this
     * context then logs are numbered on from it.
     */
    default long loggedLines(String stream) {
        return 0;
    }

    /**
     * Appends a {@code log} event (e.g. stream {@code stdout}). Buffered and written in order with
     * the job's outcome, so a follower sees every line before the terminal status. Thread-safe.
     */
    void log(String stream, String message);

    /**
     * Records progress (any JSON value): stored on the job and appended as a {@code progress}
     * event. Written at once, fenced like the outcome; returns false if the attempt lost its lease.
     *
     * @throws IllegalArgumentException naming {@code progress}, with nothing recorded, if it nests
     *                                  arrays and objects deeper than {@link JobRequest#MAX_NESTING} levels
     */
    boolean progress(Object data);

    /** The body of a {@link #step}: runs at most once per job as far as Skiplock can tell (see there). */
    @FunctionalInterface
    interface StepBody<T> {
        T run() throws Exception;
    }

    /** Work on a connection in a transaction of {@link #inTransaction}. */
    @FunctionalInterface
    interface TransactionWork<T> {
        T run(Connection connection) throws Exception;
    }

    /**
     * Runs a named step once per job (DESIGN §5, steps): its output is stored with the job as JSON
     * when {@code body} returns, and any later execution of the job (after a crash, a lost lease, a
     * retry, an adoption, a {@link #sleep} or an {@link #awaitSignal}) gets the stored output back
     * without running {@code body} again. The output is returned as stored: read back from its JSON
     * into {@code type}, the first time too, so every execution sees the same value.
     *
     * <p>The write is fenced by this execution's lease: an execution that lost its lease records
     * nothing and ends with a {@link JobStateException}. A body that throws records nothing: the
     * exception goes on to the handler, and the next attempt runs the step again. A crash between
     * the body's end and the write also runs the body again: make a step's side effects idempotent
     * or checkpoint them finely. Each start, finish and failure is a {@code step} event naming
     * the step. Names are checked like other names; a name is used once per job (by a step, a
     * sleep or a signal wait); the number of checkpoints and the size of an output are bounded
     * ({@link SkiplockConfig#maxStepsPerJob()}, {@link SkiplockConfig#maxStepOutputBytes()}).
     *
     * @throws IllegalArgumentException naming {@code name} or the output when either is refused
     */
    default <T> T step(String name, Class<T> type, StepBody<? extends T> body) throws Exception {
        throw new UnsupportedOperationException("step: not supported by " + getClass().getName());
    }

    /**
     * The outputs of the steps this job finished so far (by any execution), by name, in the order
     * they finished: what a {@link #step} of that name would return without running its body.
     */
    default Map<String, JsonNode> steps() {
        throw new UnsupportedOperationException("steps: not supported by " + getClass().getName());
    }

    /** {@link #step(String, Class, StepBody)} returning the stored JSON itself. */
    default JsonNode step(String name, StepBody<?> body) throws Exception {
        return step(name, JsonNode.class, () -> {
            Object value = body.run();
            return value instanceof JsonNode node ? node : dev.skiplock.internal.Json.MAPPER.valueToTree(value);
        });
    }

    /**
     * A durable sleep: the first time an execution of this job reaches it, the attempt ends here
     * ({@link JobSuspendedException}) without using up an attempt, and the job waits {@code queued}
     * until {@code duration} has passed, holding no thread and no lease; it then runs again from the
     * start of the handler, its finished steps returning their stored outputs, and this call returns
     * at once. In-memory jobs sleep the same way, in this process. {@code duration} is zero up to
     * a century ({@link SkiplockConfig#MAX_DURATION}), else an {@link IllegalArgumentException}
     * naming {@code duration}.
     */
    default void sleep(String name, Duration duration) {
        throw new UnsupportedOperationException("sleep: not supported by " + getClass().getName());
    }

    /**
     * Waits for signal {@code name} ({@link JobClient#signal}) at most {@code timeout}, durably as
     * {@link #sleep} does: returns its payload at once if it was delivered (also before the job
     * got here: a signal is kept), otherwise ends the attempt and runs the job again when the
     * signal comes or the timeout passes, and then returns the payload, or empty on timeout.
     * {@code timeout} is zero up to a century, as {@link #sleep}'s duration. Durable jobs only: an in-memory job gets an {@link UnsupportedOperationException}.
     */
    default Optional<JsonNode> awaitSignal(String name, Duration timeout) {
        throw new UnsupportedOperationException("awaitSignal: not supported by " + getClass().getName());
    }

    /**
     * The results of the jobs this one depends on ({@link JobRequest#withDependsOn}), by job id:
     * "run against the build it waited for". A dependency deleted since (retention) is missing;
     * one that returned no result maps to {@code null}. Empty for an in-memory job.
     */
    default Map<UUID, JsonNode> parentResults() {
        throw new UnsupportedOperationException("parentResults: not supported by " + getClass().getName());
    }

    /**
     * Runs {@code work} in one transaction on a connection to the job's database: the
     * {@link ExecutionHook} runs first inside it (e.g. {@code SET LOCAL} of the job's tenant for a
     * row-level security policy), then {@code work}, then the hook's {@code afterExecute}; commits
     * if all return, rolls back if one throws or {@link #completeInTransaction} was refused. The
     * transaction is its to end: {@code work} does not commit, roll back or change autocommit on
     * the connection (what it committed itself would escape the fence). With {@link #completeInTransaction} the job's
     * outcome commits with the work. Lines logged before the transaction are written first; lines
     * logged inside it are written with the completion, or after the transaction ends. Keep it
     * short: on SQLite it holds the database's one write lock, so other writes of this context
     * ({@link #step}, {@link #progress}, {@link #sleep}) must not be made inside it. The connection
     * comes from Skiplock's pool, which the worker's heartbeat and completer share: when many
     * handlers work in transactions at once, size the pool above the queues' concurrency
     * ({@code Skiplock.Builder.maxPoolSize}). Durable jobs only.
     */
    default <T> T inTransaction(TransactionWork<T> work) throws Exception {
        throw new UnsupportedOperationException("inTransaction: not supported by " + getClass().getName());
    }

    /**
     * Finishes this job as {@code succeeded} with {@code result} in the transaction
     * {@link #inTransaction} runs on {@code connection} (the connection it gave): the handler's
     * writes and the job's status commit together or not at all. Fenced by this execution's lease:
     * if it no longer holds the job, or a stop (cancel, timeout, shutdown) came first, a
     * {@link JobStateException} is thrown (the completion's own locks already released) and the
     * transaction is rolled back when the work ends, whatever the handler writes after catching
     * it, so a stale worker's writes never commit. From here on nothing stops the execution, and nothing more is written for the
     * job: call it last, just before the transaction ends (the job's row stays locked until then).
     * If the transaction does not commit after all, the attempt fails (retried per policy); what the
     * handler returns is not written. If the completion itself fails (its statement throws), nothing
     * is known to be completed: end the transaction promptly, since until it ends the execution's
     * lease is not extended (the transaction may hold the job's row); it then runs on, and what the
     * handler returns is its outcome. Call it once per transaction; {@code inTransaction} does not
     * nest. Durable jobs only.
     *
     * @throws IllegalArgumentException if {@code connection} is not the one {@link #inTransaction} gave
     */
    default void completeInTransaction(Connection connection, Object result) throws SQLException {
        throw new UnsupportedOperationException("completeInTransaction: not supported by " + getClass().getName());
    }
}
