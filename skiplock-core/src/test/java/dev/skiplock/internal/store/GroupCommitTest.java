package dev.skiplock.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.skiplock.SkiplockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit, each interleaving forced: the first write is held inside its statement (a latch)
 * until the writes under test wait behind it, as concurrent enqueues wait behind SQLite's write lock.
 */
class GroupCommitTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    private final ExecutorService callers = Executors.newCachedThreadPool();
    /** Each write alone, by item, with the thread that wrote it. */
    private final Map<String, String> aloneOnThread = new ConcurrentHashMap<>();
    /** Each group written, in order. */
    private final List<List<String>> groups = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstEntered = new CountDownLatch(1);
    private final CountDownLatch releaseFirst = new CountDownLatch(1);

    @AfterEach
    void stop() {
        releaseFirst.countDown();
        callers.shutdownNow();
    }

    /** Writes alone: "first" is held until released; "bad" is refused for its data. */
    private String alone(String item) {
        aloneOnThread.put(item, Thread.currentThread().getName());
        if (item.equals("first")) {
            firstEntered.countDown();
            awaitQuietly(releaseFirst);
        }
        if (item.equals("bad")) {
            throw new IllegalArgumentException("refused: " + item);
        }
        return item + " written";
    }

    private List<String> together(List<String> items) {
        groups.add(List.copyOf(items));
        if (items.contains("bad")) {
            throw new IllegalArgumentException("the group holds a refused item");
        }
        if (items.contains("unlucky")) {
            throw new IllegalStateException("the lock was not obtained in time");
        }
        return items.stream().map(item -> item + " written with " + (items.size() - 1) + " others").toList();
    }

    /** IllegalArgumentException stands for a refusal of the data, any other failure for the database's. */
    private final GroupCommit<String, String> commit = new GroupCommit<>(this::alone, this::together,
            failure -> failure instanceof IllegalArgumentException, String::length, Long.MAX_VALUE);

    @Test
    void aWriteThatFindsNoneInProgressIsWrittenAloneAtOnce() {
        assertThat(commit.write("one")).isEqualTo("one written");
        assertThat(commit.write("two")).isEqualTo("two written");
        assertThat(groups).isEmpty();
    }

    @Test
    void writesThatComeWhileOneIsWrittenAreWrittenTogetherAfterIt() throws Exception {
        Future<String> first = holdFirst();
        Map<String, Future<String>> waiting = new ConcurrentHashMap<>();
        for (String item : List.of("a", "b", "c")) {
            waiting.put(item, callers.submit(() -> commit.write(item)));
        }
        awaitWaiting(3);
        assertThat(groups).as("nothing is written while the first write holds").isEmpty();

        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        for (String item : List.of("a", "b", "c")) {
            assertThat(waiting.get(item).get(BOUND.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo(item + " written with 2 others");
        }
        assertThat(groups).hasSize(1);
        assertThat(groups.getFirst()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(aloneOnThread).containsOnlyKeys("first");
    }

    @Test
    void aGroupThatFailsIsWrittenAgainEachAloneOnItsCallersThreadAndOnlyTheRefusedWriteFails() throws Exception {
        Future<String> first = holdFirst();
        Map<String, Future<String>> waiting = new ConcurrentHashMap<>();
        Map<String, String> callerThreads = new ConcurrentHashMap<>();
        for (String item : List.of("a", "bad", "c")) {
            waiting.put(item, callers.submit(() -> {
                callerThreads.put(item, Thread.currentThread().getName());
                return commit.write(item);
            }));
        }
        awaitWaiting(3);
        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        assertThat(waiting.get("a").get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("a written");
        assertThat(waiting.get("c").get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("c written");
        assertThatThrownBy(() -> waiting.get("bad").get(BOUND.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(IllegalArgumentException.class).hasMessage("refused: bad");
        assertThat(groups).hasSize(1);
        for (String item : List.of("a", "bad", "c")) {
            assertThat(aloneOnThread.get(item)).as(item + " written again on its caller's thread")
                    .isEqualTo(callerThreads.get(item));
        }
    }

    @Test
    void aLoneWriteThatFailsFailsItsCallerAndTheNextWriteIsTaken() {
        assertThatThrownBy(() -> commit.write("bad")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refused: bad");
        assertTimeoutPreemptively(BOUND, () -> assertThat(commit.write("next")).isEqualTo("next written"));
    }

    @Test
    void aGroupAnsweredWithTheWrongCountFailsEachOfItsWritesWithoutWritingThemAgain() throws Exception {
        GroupCommit<String, String> shortAnswers = new GroupCommit<>(this::alone,
                items -> {
                    groups.add(List.copyOf(items));
                    return List.of("one answer");
                }, failure -> true, String::length, Long.MAX_VALUE);
        Future<String> first = callers.submit(() -> shortAnswers.write("first"));
        assertThat(firstEntered.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        List<Future<String>> waiting = new ArrayList<>();
        for (String item : List.of("a", "b")) {
            waiting.add(callers.submit(() -> shortAnswers.write(item)));
        }
        awaitWaiting(shortAnswers, 2);
        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        assertLeaderAndFollowersFailedWith(waiting, "a group of 2 writes answered 1: its statement ran, the writes may be stored");
        assertThat(aloneOnThread).containsOnlyKeys("first");
    }

    /**
     * Interrupted while they wait (a handler's timeout or cancel), the writes still get their
     * answers and keep their interrupt; the one of them that leads writes the others' too, as one
     * group (the write refuses an interrupted thread, as the pool refuses to lend it a connection).
     */
    @Test
    void waitingWritesInterruptedAreWrittenTogetherAndKeepTheInterrupt() throws Exception {
        GroupCommit<String, String> refusingInterrupted = new GroupCommit<>(this::alone, items -> {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted during connection acquisition");
            }
            return together(items);
        }, failure -> false, String::length, Long.MAX_VALUE);
        Future<String> first = callers.submit(() -> refusingInterrupted.write("first"));
        assertThat(firstEntered.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        Map<String, Future<String>> waiting = new ConcurrentHashMap<>();
        Map<String, Thread> threads = new ConcurrentHashMap<>();
        Map<String, Boolean> keptInterrupt = new ConcurrentHashMap<>();
        for (String item : List.of("a", "b", "c")) {
            waiting.put(item, callers.submit(() -> {
                threads.put(item, Thread.currentThread());
                String answer = refusingInterrupted.write(item);
                keptInterrupt.put(item, Thread.currentThread().isInterrupted());
                return answer;
            }));
        }
        awaitWaiting(refusingInterrupted, 3);
        threads.values().forEach(Thread::interrupt);

        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        for (String item : List.of("a", "b", "c")) {
            assertThat(waiting.get(item).get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(item + " written with 2 others");
        }
        assertThat(keptInterrupt).containsOnly(Map.entry("a", true), Map.entry("b", true), Map.entry("c", true));
        assertThat(groups).hasSize(1);
    }

    @Test
    void anErrorWhileAGroupIsWrittenLeavesItsWritesFailedAsUnknownNotWrittenAgain() throws Exception {
        GroupCommit<String, String> failingHard = new GroupCommit<>(this::alone, items -> {
            groups.add(List.copyOf(items));
            throw new OutOfMemoryError("test: reading the answers");
        }, failure -> true, String::length, Long.MAX_VALUE);
        Future<String> first = callers.submit(() -> failingHard.write("first"));
        assertThat(firstEntered.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        List<Future<String>> waiting = new ArrayList<>();
        for (String item : List.of("a", "b", "c")) {
            waiting.add(callers.submit(() -> failingHard.write(item)));
        }
        awaitWaiting(failingHard, 3);
        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        List<Throwable> failures = new ArrayList<>();
        for (Future<String> write : waiting) {
            assertThatThrownBy(() -> write.get(BOUND.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).satisfies(e -> failures.add(e.getCause()));
        }
        assertThat(failures).filteredOn(OutOfMemoryError.class::isInstance).as("the leader's").hasSize(1);
        assertThat(failures).filteredOn(SkiplockException.class::isInstance).hasSize(2)
                .allSatisfy(failure -> assertThat(failure).hasMessageContaining("whether it was stored is unknown"));
        assertThat(aloneOnThread).containsOnlyKeys("first");
        assertTimeoutPreemptively(BOUND, () -> assertThat(failingHard.write("next")).isEqualTo("next written"));
    }

    @Test
    void aGroupThatFailsForAnotherReasonFailsEachOfItsWritesWithoutWritingThemAgain() throws Exception {
        Future<String> first = holdFirst();
        List<Future<String>> waiting = new ArrayList<>();
        for (String item : List.of("a", "unlucky", "c")) {
            waiting.add(callers.submit(() -> commit.write(item)));
        }
        awaitWaiting(3);
        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        assertLeaderAndFollowersFailedWith(waiting, "the lock was not obtained in time");
        assertThat(groups).hasSize(1);
        assertThat(aloneOnThread).containsOnlyKeys("first");
    }

    @Test
    void aGroupOfMoreThanTheMostOneStatementCarriesIsWrittenInSeveral() throws Exception {
        Future<String> first = holdFirst();
        List<Future<String>> waiting = new ArrayList<>();
        Map<Future<String>, String> waitingItems = new java.util.HashMap<>();
        int writes = GroupCommit.MAX_GROUP * 2 + 1;
        ExecutorService many = Executors.newVirtualThreadPerTaskExecutor();
        try {
            for (int i = 0; i < writes; i++) {
                String item = "w" + i;
                Future<String> write = many.submit(() -> commit.write(item));
                waiting.add(write);
                waitingItems.put(write, item);
            }
            awaitWaiting(writes);
            releaseFirst.countDown();

            assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
            for (Future<String> write : waiting) {
                String item = waitingItems.get(write);
                assertThat(write.get(BOUND.toSeconds(), TimeUnit.SECONDS)).startsWith(item + " written");
            }
        } finally {
            many.shutdownNow();
        }
        assertThat(groups).extracting(List::size).containsExactly(GroupCommit.MAX_GROUP, GroupCommit.MAX_GROUP);
        assertThat(aloneOnThread).hasSize(2).containsKey("first");
    }

    /**
     * A statement carries as many writes, in arrival order, as fit the size bound; a write larger
     * than it is written alone, on its caller's thread.
     */
    @Test
    void aGroupLargerThanTheSizeBoundIsWrittenInStatementsWithinItAndALargerWriteAlone() throws Exception {
        GroupCommit<String, String> sized = new GroupCommit<>(this::alone, this::together,
                failure -> failure instanceof IllegalArgumentException, String::length, 10);
        Future<String> first = holdFirst(sized);
        List<String> items = List.of("aaaa", "bbbb", "cccccccccccc", "dd", "eeee", "ffff");
        Map<String, String> callerThreads = new ConcurrentHashMap<>();
        Map<String, Future<String>> waiting = waitInOrder(sized, items, callerThreads);
        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        for (String item : items) {
            assertThat(waiting.get(item).get(BOUND.toSeconds(), TimeUnit.SECONDS)).startsWith(item + " written");
        }
        assertThat(groups).containsExactly(List.of("aaaa", "bbbb"), List.of("dd", "eeee", "ffff"));
        assertThat(aloneOnThread).containsOnlyKeys("first", "cccccccccccc");
        assertThat(aloneOnThread.get("cccccccccccc")).isEqualTo(callerThreads.get("cccccccccccc"));
    }

    @Test
    void aWriteWhoseSizeCannotBeMeasuredIsWrittenAloneOnItsCallersThreadAndTheOthersTogether() throws Exception {
        List<String> measured = new CopyOnWriteArrayList<>();
        GroupCommit<String, String> sized = new GroupCommit<>(this::alone, this::together,
                failure -> failure instanceof IllegalArgumentException, item -> {
                    measured.add(item);
                    if (item.equals("unmeasurable")) {
                        throw new IllegalStateException("test: cannot measure " + item);
                    }
                    return item.length();
                }, 100);
        assertThat(sized.write("lone")).isEqualTo("lone written");
        assertThat(measured).as("a write alone is not measured").isEmpty();

        Future<String> first = holdFirst(sized);
        Map<String, String> callerThreads = new ConcurrentHashMap<>();
        Map<String, Future<String>> waiting = waitInOrder(sized, List.of("unmeasurable", "b", "c"), callerThreads);
        releaseFirst.countDown();

        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first written");
        assertThat(waiting.get("unmeasurable").get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("unmeasurable written");
        assertThat(waiting.get("b").get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("b written with 1 others");
        assertThat(waiting.get("c").get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("c written with 1 others");
        assertThat(groups).containsExactly(List.of("b", "c"));
        assertThat(aloneOnThread.get("unmeasurable")).isEqualTo(callerThreads.get("unmeasurable"));
    }

    @Test
    void aSizeBoundBelowOneIsRefused() {
        assertThatThrownBy(() -> new GroupCommit<String, String>(this::alone, this::together, failure -> false,
                String::length, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxSize must be at least 1, got 0");
    }

    /**
     * The group's leader (one of the writes) fails with the failure itself; each follower with its
     * own exception, on its own thread, caused by it.
     */
    private static void assertLeaderAndFollowersFailedWith(List<Future<String>> writes, String message)
            throws InterruptedException {
        List<Throwable> failures = new ArrayList<>();
        for (Future<String> write : writes) {
            try {
                write.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failures.add(e.getCause());
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("a write left waiting", e);
            }
        }
        assertThat(failures).hasSize(writes.size());
        assertThat(failures).filteredOn(IllegalStateException.class::isInstance).singleElement()
                .extracting(Throwable::getMessage).isEqualTo(message);
        assertThat(failures).filteredOn(SkiplockException.class::isInstance).hasSize(writes.size() - 1)
                .allSatisfy(failure -> assertThat(failure)
                        .hasMessage("written in one statement with other enqueues, which failed: " + message)
                        .cause().isInstanceOf(IllegalStateException.class).hasMessage(message));
    }

    /** Starts the write "first" and returns once it is inside its statement, held there. */
    private Future<String> holdFirst() throws InterruptedException {
        return holdFirst(commit);
    }

    private Future<String> holdFirst(GroupCommit<String, String> through) throws InterruptedException {
        Future<String> first = callers.submit(() -> through.write("first"));
        assertThat(firstEntered.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return first;
    }

    /**
     * Writes {@code items}, each on a caller thread of its own (recorded in {@code callerThreads}),
     * one after the other, each waiting before the next starts: a group keeps their order.
     */
    private Map<String, Future<String>> waitInOrder(GroupCommit<String, String> through, List<String> items,
            Map<String, String> callerThreads) {
        Map<String, Future<String>> waiting = new ConcurrentHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i);
            waiting.put(item, callers.submit(() -> {
                callerThreads.put(item, Thread.currentThread().getName());
                return through.write(item);
            }));
            awaitWaiting(through, i + 1);
        }
        return waiting;
    }

    private void awaitWaiting(int writes) {
        awaitWaiting(commit, writes);
    }

    private static void awaitWaiting(GroupCommit<?, ?> commit, int writes) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (commit.waiting() < writes) {
            assertThat(System.nanoTime()).as(writes + " writes waiting").isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            assertThat(latch.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
