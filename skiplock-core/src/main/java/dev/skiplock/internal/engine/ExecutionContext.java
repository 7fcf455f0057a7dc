package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobStateException;
import dev.skiplock.Names;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.StorableText;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.EventStore;
import dev.skiplock.internal.store.StepStore;
import dev.skiplock.internal.store.StepStore.Checkpoint;
import dev.skiplock.internal.store.StepStore.Kind;
import dev.skiplock.internal.store.TransactionEnds;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a handler sees of its execution. Its own database calls (progress, logged lines,
 * checkpoints) run with the execution's interrupts held back ({@link Execution#storeCall}), and
 * those that may be sent again are, after a lost connection ({@link HandlerCalls}); what it logs
 * or reports is made storable first ({@link StorableText}). Checkpoints and the handler's
 * completion in its own transaction are fenced on the execution's lease like its outcome.
 */
final class ExecutionContext<A> extends ExecutionView<A> {
    private final HandlerServices services;
    /**
     * While the handler works in {@link #inTransaction}: its connection, and the lines it logs
     * meanwhile, held back so that a completion in that transaction writes them before the job's
     * status (through the completer they could land after it and be dropped, the lease gone).
     */
    private Connection transaction;
    private final java.util.List<EventStore.LogLine> transactionLines = new java.util.ArrayList<>();
    /** The savepoint a refused completion in the handler's transaction is rolled back to. */
    private static final String BEFORE_COMPLETION = "skiplock_before_completion";
    /** How many of {@link #transactionLines} a completion wrote in the transaction: gone from the buffer once it commits. */
    private int linesWithCompletion;
    /** Whether a completion was written in the open transaction (guarded by {@link #transactionLines}). */
    private boolean completionApplied;
    /**
     * completeInTransaction was refused (the execution stopped, its lease gone, or its attempt
     * suspended): the handler's transaction rolls back at its end; guarded by transactionLines.
     */
    private boolean transactionRefused;
    /**
     * The place of the next line of each stream in this attempt (the key that stores a line once):
     * from 0 in a claimed attempt; from what is recorded where an adopter resumes one, since the
     * execution it adopts wrote the lines before.
     */
    private final Map<String, AtomicLong> nextLine = new ConcurrentHashMap<>();
    private final boolean resumed;

    /** {@code resumed}: an adopter resumes an execution that another worker (or this one) started. */
    ExecutionContext(A args, Execution execution, HandlerServices services, boolean resumed) {
        super(args, execution, new DatabaseCheckpoints(execution, services), services.config());
        this.services = services;
        this.resumed = resumed;
    }

    @Override
    public boolean leaseLost() {
        return execution.leaseLost();
    }

    @Override
    public boolean mayBeResumed() {
        try {
            return execution.storeCall(() -> services.stores().jobs().executionRunning(execution.job().id(),
                    execution.executionId()));
        } catch (RuntimeException e) {
            return true; // cannot tell: leave the execution to whoever may adopt it
        }
    }

    @Override
    public long loggedLines(String stream) {
        String checked = Names.check("stream", stream);
        long logged = countLogs(checked);
        if (resumed) {
            nextLine.putIfAbsent(checked, new AtomicLong(logged)); // where the resumed output goes on
        }
        return logged;
    }

    private long countLogs(String stream) {
        return HandlerCalls.retriedOnConnectionLoss(services.config().leaseTtl(), execution::stopRequested,
                () -> execution.storeCall(() -> services.stores().events().countLogs(execution.attempt(), stream)));
    }

    @Override
    public void log(String stream, String message) {
        String checked = Names.check("stream", stream);
        String text = message == null ? "" : StorableText.of(message);
        AtomicLong next = nextLine.get(checked);
        if (next == null) {
            long first = resumed ? countLogs(checked) : 0; // outside the map's lock: the read may wait out an outage
            next = nextLine.computeIfAbsent(checked, name -> new AtomicLong(first));
        }
        synchronized (transactionLines) { // numbered in the order the lines are handed on
            if (transaction != null) { // written with the transaction's completion: no room in the queue to wait for
                transactionLines.add(new EventStore.LogLine(execution.attempt(), checked, next.getAndIncrement(), text));
                return;
            }
        }
        // Room in the completer's queue, waited for outside the lock: the queue may be full of lines
        // the completer cannot write until a transaction of this handler ends, which takes the lock.
        int cost = LogBudget.cost(text);
        try {
            execution.logBudget().take(cost);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopped while its lines waited: this one goes with the attempt
            return;
        }
        synchronized (transactionLines) {
            EventStore.LogLine line = new EventStore.LogLine(execution.attempt(), checked, next.getAndIncrement(), text);
            if (transaction != null) { // a transaction began meanwhile
                transactionLines.add(line);
                execution.logBudget().give(cost);
            } else {
                services.completer().submitLog(line, () -> execution.logBudget().give(cost));
            }
        }
    }

    @Override
    public boolean progress(Object data) {
        requireNotCommitting("progress");
        JsonNode tree = Json.MAPPER.valueToTree(data);
        StorableText.requireNesting("progress", tree); // a job list holding it could not be written
        String json = tree == null ? "null" : StorableText.of(tree).toString();
        return HandlerCalls.retriedOnConnectionLoss(services.config().leaseTtl(), execution::stopRequested,
                () -> execution.storeCall(() -> services.stores().events().updateProgress(execution.attempt(), json)));
    }

    @Override
    public Optional<JsonNode> awaitSignal(String name, Duration timeout) {
        return steps.awaitSignal(name, timeout);
    }

    @Override
    public Map<UUID, JsonNode> parentResults() {
        return HandlerCalls.retriedOnConnectionLoss(services.config().leaseTtl(), execution::stopRequested,
                () -> execution.storeCall(() -> services.stores().steps().listParentResults(execution.job().id())));
    }

    @Override
    public <T> T inTransaction(TransactionWork<T> work) throws Exception {
        if (work == null) {
            throw new IllegalArgumentException("work: is required");
        }
        requireNotCommitting("inTransaction");
        synchronized (transactionLines) {
            if (transaction != null) {
                // one transaction of the handler at a time: its lines and its completion belong to it
                throw new IllegalStateException("inTransaction: called inside another inTransaction of this"
                        + " handler; do the work in the one transaction");
            }
        }
        // What was logged before goes first; waiting inside the transaction could wait forever on
        // SQLite, whose one writer the transaction is.
        services.completer().awaitWritten();
        try (Connection connection = services.dataSource().getConnection()) {
            TransactionEnds.begin(connection);
            synchronized (transactionLines) {
                transaction = connection;
            }
            boolean committed = false;
            try {
                services.hook().beforeExecute(this, connection);
                T result = work.run(connection);
                services.hook().afterExecute(this, connection);
                if (refused()) {
                    execution.storeCall(() -> {
                        TransactionEnds.rollBack(connection, new JobStateException("refused", execution.job()));
                        return null;
                    });
                    return result;
                }
                TransactionEnds.commit(connection); // rolls back what is still open if the commit fails
                committed = true;
                return result;
            } catch (Exception | Error e) {
                TransactionEnds.rollBack(connection, e); // before autocommit, which would commit what ran
                throw e;
            } finally {
                endTransaction(committed);
            }
        }
    }

    /**
     * The handler's transaction ended: lines that did not commit with a completion go to the
     * completer, and an execution whose completion rolled back can be stopped again.
     */
    private void endTransaction(boolean committed) {
        boolean completed;
        synchronized (transactionLines) {
            if (committed) {
                transactionLines.subList(0, linesWithCompletion).clear(); // committed with the job's status
            }
            transaction = null;
            linesWithCompletion = 0;
            transactionLines.forEach(line -> services.completer().submitLog(line, () -> { })); // their budget was given back
            transactionLines.clear();
            completed = committed && completionApplied;
            completionApplied = false;
            transactionRefused = false;
        }
        if (!completed) {
            execution.commitAbandoned(); // no completion committed (rolled back, or its statement failed)
        }
    }

    /** Whether this transaction's completion was refused (a stop came first): it must not commit. */
    private boolean refused() {
        synchronized (transactionLines) {
            return transactionRefused;
        }
    }

    private void requireNotCommitting(String call) {
        if (execution.isCommitting()) {
            throw new IllegalStateException(call + ": the job's completion is in the handler's transaction (written,"
                    + " or failed and not yet ended); nothing more can be written for it until that transaction ends");
        }
    }

    @Override
    public void completeInTransaction(Connection connection, Object result) throws SQLException {
        synchronized (transactionLines) {
            if (connection == null || connection != transaction) {
                throw new IllegalArgumentException("connection: must be the connection inTransaction gives this handler");
            }
        }
        if (connection.getAutoCommit()) {
            // its work would commit statement by statement, and on SQLite the savepoint below would
            // open a transaction nothing ends, the connection going back to the pool holding the lock
            throw new IllegalStateException("completeInTransaction: the connection is in autocommit; the transaction"
                    + " is inTransaction's to end: do not commit, roll back or change autocommit in its work");
        }
        if (execution.suspended()) {
            // The handler caught the wait that ends this attempt (JobSuspendedException): the attempt
            // still ends with it, so its transaction, whose writes the replay makes again, rolls back.
            synchronized (transactionLines) {
                transactionRefused = true;
            }
            throw new IllegalStateException("completeInTransaction: comes after a sleep or signal wait that ended"
                    + " this attempt; the attempt ends with that wait, and this transaction is rolled back");
        }
        Completion completion = services.outcomes().fromHandler(execution, JobOutcome.complete(result), null);
        if (completion.status() != dev.skiplock.JobStatus.SUCCEEDED) {
            throw new IllegalArgumentException("result: " + completion.error());
        }
        requireNotCommitting("completeInTransaction");
        if (!execution.beginCommit()) {
            // As when the lease is gone (below), a stopped execution's writes never commit: its
            // transaction is rolled back when it ends, whatever the handler does after swallowing
            // this (rolled back here, what it wrote next would commit in a new transaction, without
            // what beforeExecute set for it; and the stop's interrupt may be pending on this thread).
            synchronized (transactionLines) {
                transactionRefused = true;
            }
            throw new JobStateException("job " + execution.job().id() + " was not completed: this execution was"
                    + " stopped first (cancel, timeout, lost lease or shutdown); its transaction is rolled back",
                    execution.job());
        }
        java.util.List<EventStore.LogLine> lines;
        synchronized (transactionLines) {
            lines = java.util.List.copyOf(transactionLines);
            linesWithCompletion = lines.size();
        }
        boolean applied;
        try {
            // A refused completion is undone to here: on PostgreSQL its statements locked the job's
            // row and its event turn, which the new owner, a stop's outcome and a release wait for.
            execute(connection, "SAVEPOINT " + BEFORE_COMPLETION);
            applied = execution.storeCall(() -> {
                services.stores().events().appendLogs(connection, lines); // before the status, as always
                return services.stores().jobs().completeJobs(connection, completion);
            });
        } catch (SQLException | RuntimeException | Error e) {
            // Nothing known to be completed. The execution stays committing while the transaction
            // is open (it may hold the job row's lock, which the heartbeat must not wait for), and
            // runs again when the transaction ends (endTransaction), whether the handler catches
            // this and commits or not: the heartbeat then keeps it and a stop reaches it.
            synchronized (transactionLines) {
                linesWithCompletion = 0; // written again by the completer if they did commit: kept once
            }
            throw e;
        }
        if (!applied) {
            // The completion's locks go now (the execution runs again: a stop may come, and a stop's
            // outcome waits for the row); the rest of the transaction rolls back when it ends, as a
            // stopped execution's (above). Rolled back whole here, what the handler wrote after
            // swallowing this committed in a new transaction (which SQLite's driver also began at
            // once, taking the write lock again).
            SQLException notUndone = null;
            try {
                execute(connection, "ROLLBACK TO SAVEPOINT " + BEFORE_COMPLETION);
            } catch (SQLException e) {
                notUndone = e; // (pgjdbc's autosave=always with cleanupSavepoints releases ours): the end undoes it
            }
            synchronized (transactionLines) {
                transactionRefused = true;
                linesWithCompletion = 0; // rolled back with the completion: still the completer's to write
            }
            execution.commitAbandoned();
            JobStateException refusal = new JobStateException("job " + execution.job().id() + " was not completed: this execution no longer"
                    + " holds its lease (reaped, or taken by another worker); its transaction is rolled back",
                    execution.job());
            if (notUndone != null) {
                refusal.addSuppressed(notUndone);
            }
            throw refusal;
        }
        synchronized (transactionLines) {
            completionApplied = true;
        }
        execution.completedInTransaction();
    }

    /**
     * Runs {@code sql} on the handler's connection as a store call (a stop's interrupt waits for
     * it): statements, not the driver's savepoint calls, as TransactionEnds ends transactions.
     */
    private void execute(Connection connection, String sql) throws SQLException {
        SQLException[] failed = new SQLException[1];
        execution.storeCall(() -> {
            try (java.sql.Statement statement = connection.createStatement()) {
                statement.execute(sql);
            } catch (SQLException e) {
                failed[0] = e;
            }
            return null;
        });
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /** Checkpoints in the database, every write fenced on this execution's lease. */
    private record DatabaseCheckpoints(Execution execution, HandlerServices services) implements Steps.Store {
        @Override
        public Map<String, Checkpoint> load() {
            return services.stores().steps().listSteps(execution.job().id());
        }

        @Override
        public StepStore.Recorded record(String name, Kind kind, String outputJson, Long waitMillis, String eventStatus) {
            return services.stores().steps().recordStep(execution.attempt(), name, kind, outputJson, waitMillis, eventStatus);
        }

        @Override
        public void event(String name, String status, String message) {
            services.stores().steps().appendStepEvent(execution.attempt(), name, status,
                    message == null ? null : StorableText.of(message));
        }

        @Override
        public Optional<JsonNode> signal(String name) {
            return services.stores().signals().readSignal(execution.job().id(), name);
        }
    }
}
