package dev.skiplock.internal.store;

import dev.skiplock.SkiplockException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Writes that arrive while another is being written, gathered to share one statement and one commit
 * (group commit). Where the database writes one transaction at a time (SQLite: one write lock, and a
 * commit that syncs the WAL), concurrent lone enqueues, such as the HTTP API's submits, otherwise
 * queue on the lock one commit each; gathered, each commit carries every enqueue that arrived while
 * the one before it was written (issue #12's HTTP submit target on SQLite).
 *
 * <p>No timer: a write that finds none in progress is written at once, alone, as before; one that
 * finds one in progress waits for it, then the first of the waiting writes all that waited (a
 * leader; the others are its followers), at most {@link #MAX_GROUP} writes and {@code maxSize} of
 * their size to a statement. So a caller waits only where it would have queued on the lock anyway,
 * and a group forms only there.
 *
 * <p>A group is one statement: it fails or commits whole. When the database refuses the data it
 * carried (too large, not storable), each of its writes is written again alone, on its own caller's
 * thread, so that only the write the database refuses fails ("hostile data harms only that job").
 * Any other failure (a lock not obtained in time, a lost connection) fails each of its writes with
 * it: written again alone, each would wait for the same lock again.
 *
 * <p>The size bound limits what one statement carries of its writes by the caller's measure (for
 * jobs: their JSON documents): without it, concurrent large writes (1-MiB HTTP submits under the
 * launcher's 64-MiB heap) would be copied into one statement's parameter many times the size of
 * any. A write larger than the bound, or one whose size cannot be measured, is written alone, on
 * its caller's thread.
 *
 * @param <T> what is written
 * @param <R> what a write answers
 */
final class GroupCommit<T, R> {
    /** The most writes one statement carries (a batch enqueue's JSON of 1,000 no-op jobs: ~200 KB). */
    static final int MAX_GROUP = 1_000;

    private final Function<T, R> writeAlone;
    /** Answers one per item, in order; throws if the group is not written, and then wrote none of it. */
    private final Function<List<T>, List<R>> writeTogether;
    private final Predicate<RuntimeException> refusedData;
    /** A write's size, by the measure {@link #maxSize} bounds; asked by a leader, of the writes it gathered. */
    private final ToLongFunction<T> size;
    /** The most size one statement carries, unless it carries one write only. */
    private final long maxSize;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a leader is done: its followers have their answers, and another may lead. */
    private final Condition leaderDone = lock.newCondition();
    /** Writes waiting for the next leader (guarded by {@link #lock}). */
    private List<Pending<T, R>> waiting = new ArrayList<>();
    /** Whether a leader is writing (guarded by {@link #lock}). */
    private boolean writing;

    /**
     * @param writeAlone    writes one item in a transaction of its own
     * @param writeTogether writes several in one statement, answering in their order
     * @param refusedData   true for a failure caused by the data the statement carried
     * @param size          a write's size (never negative), asked only of writes gathered into a group
     * @param maxSize       the most size a statement of several writes carries
     */
    GroupCommit(Function<T, R> writeAlone, Function<List<T>, List<R>> writeTogether,
            Predicate<RuntimeException> refusedData, ToLongFunction<T> size, long maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be at least 1, got " + maxSize);
        }
        this.writeAlone = writeAlone;
        this.writeTogether = writeTogether;
        this.refusedData = refusedData;
        this.size = size;
        this.maxSize = maxSize;
    }

    /** Writes {@code item}, alone or in a group, and returns its answer once it is committed. */
    R write(T item) {
        Pending<T, R> mine = new Pending<>(item);
        List<Pending<T, R>> group = gatherOrWait(mine);
        if (group != null) {
            try {
                lead(group);
            } finally {
                finish(group);
            }
        }
        // Published under the lock (finish) and read after it: the leader's writes happen before.
        return switch (mine.state) {
            case WRITTEN -> mine.answer;
            case WRITE_ALONE -> writeAlone.apply(item);
            case FAILED -> throw group != null ? mine.failure
                    : new SkiplockException("written in one statement with other enqueues, which failed: "
                    + mine.failure.getMessage(), mine.failure);
            case WAITING, GATHERED -> throw new IllegalStateException("a gathered write was left unanswered");
        };
    }

    /**
     * Adds {@code mine} to the waiting writes, waits while another leads; returns the group to
     * write when this caller leads, or null when a leader answered it.
     */
    private List<Pending<T, R>> gatherOrWait(Pending<T, R> mine) {
        lock.lock();
        try {
            waiting.add(mine);
            while (mine.state == State.GATHERED || (mine.state == State.WAITING && writing)) {
                // Not interruptible: a leader may be writing this item; giving up here would leave
                // the caller believing a committed job was not enqueued. The wait lasts one write.
                leaderDone.awaitUninterruptibly();
            }
            if (mine.state != State.WAITING) {
                return null;
            }
            // Allocated first: past it nothing here can throw, so no gathered write is left without a leader.
            List<Pending<T, R>> next = new ArrayList<>();
            List<Pending<T, R>> group = waiting;
            waiting = next;
            for (int i = 0; i < group.size(); i++) {
                group.get(i).state = State.GATHERED;
            }
            writing = true;
            return group;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes the group, in arrival order, each statement as many writes as fit {@link #MAX_GROUP}
     * and {@link #maxSize}, recording each write's outcome.
     */
    private void lead(List<Pending<T, R>> group) {
        if (group.size() == 1) {
            // The leader's own write, alone: a failure is its caller's and propagates from here.
            Pending<T, R> only = group.getFirst();
            only.outcome(State.WRITTEN, writeAlone.apply(only.item), null);
            return;
        }
        // The others' writes are not the leader's to give up: an interrupt meant for its caller (a
        // handler's timeout or cancel) would fail them all (the pool refuses an interrupted borrow).
        // It is put back for the leader's caller once the group is written.
        boolean interrupted = Thread.interrupted();
        try {
            long[] sizes = new long[group.size()];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = sizeOf(group.get(i).item);
            }
            int from = 0;
            while (from < group.size()) {
                int to = from + 1;
                long carried = sizes[from];
                while (to < group.size() && to - from < MAX_GROUP && sizes[to] <= maxSize - carried) {
                    carried += sizes[to];
                    to++;
                }
                writeGroup(group.subList(from, to));
                from = to;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A write's size; one that cannot be measured counts as too large to share a statement, so it
     * is written alone and its own caller meets the failure, not the leader's caller.
     */
    private long sizeOf(T item) {
        try {
            return size.applyAsLong(item);
        } catch (RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    private void writeGroup(List<Pending<T, R>> group) {
        if (group.size() == 1) {
            group.getFirst().outcome(State.WRITE_ALONE, null, null);
            return;
        }
        List<R> answers;
        try {
            answers = writeTogether.apply(group.stream().map(pending -> pending.item).toList());
        } catch (RuntimeException e) {
            boolean alone = refusedData.test(e);
            group.forEach(pending -> pending.outcome(alone ? State.WRITE_ALONE : State.FAILED, null, e));
            return;
        } catch (Error e) {
            // It may have struck after the commit: written again, a stored job would be refused by
            // its own id and reported failed all the same. Its outcome is unknown; the Error goes on.
            SkiplockException unknown = new SkiplockException("a group's write ended with " + e
                    + ": whether it was stored is unknown", e);
            group.forEach(pending -> pending.outcome(State.FAILED, null, unknown));
            throw e;
        }
        if (answers.size() != group.size()) {
            IllegalStateException wrong = new IllegalStateException("a group of " + group.size()
                    + " writes answered " + answers.size() + ": its statement ran, the writes may be stored");
            group.forEach(pending -> pending.outcome(State.FAILED, null, wrong));
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            group.get(i).outcome(State.WRITTEN, answers.get(i), null);
        }
    }

    /**
     * Publishes each write's outcome under the lock, whatever the leader met; a write left without
     * one (in a group after an Error's, or the leader's own failed alone) is written again by its
     * caller, alone (the leader's caller gets its failure instead). Then the next leader may go.
     */
    private void finish(List<Pending<T, R>> group) {
        lock.lock();
        try {
            for (Pending<T, R> pending : group) {
                pending.publish();
            }
            writing = false;
            leaderDone.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Writes of waiting callers now (for tests: a group forms only of these and the leader's next). */
    int waiting() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** Waiting for a leader, gathered into a leader's group, then one of the three outcomes. */
    private enum State { WAITING, GATHERED, WRITTEN, WRITE_ALONE, FAILED }

    /**
     * One caller's write. {@code state} changes only under the lock; the leader records the outcome
     * unguarded ({@code outcome}) and {@code publish}, under the lock, makes it the state.
     */
    private static final class Pending<T, R> {
        final T item;
        State state = State.WAITING;
        R answer;
        /** Why its group failed, or null. */
        RuntimeException failure;
        private State recorded;

        Pending(T item) {
            this.item = item;
        }

        void outcome(State outcome, R value, RuntimeException cause) {
            recorded = outcome;
            answer = value;
            failure = cause;
        }

        void publish() {
            state = recorded == null ? State.WRITE_ALONE : recorded;
        }
    }
}
