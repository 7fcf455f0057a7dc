package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a batch with one unstorable item is written: each other item once, that one in its storable form. */
class IsolatingWriterTest {
    /** A statement the "database" rejects for its data when a batch holds an item starting with "bad". */
    private static final class DataError extends RuntimeException {
    }

    private final List<List<String>> committed = new ArrayList<>();
    private final List<String> dropped = new ArrayList<>();
    private boolean unreachable;

    private void write(List<String> batch) {
        if (unreachable) {
            throw new IllegalStateException("connection refused");
        }
        if (batch.stream().anyMatch(item -> item.startsWith("bad"))) {
            throw new DataError();
        }
        committed.add(List.copyOf(batch));
    }

    private IsolatingWriter<String> writer(String storableForm) {
        return new IsolatingWriter<>(this::write, e -> e instanceof DataError, item -> storableForm, dropped::add);
    }

    private List<String> written() {
        return committed.stream().flatMap(List::stream).toList();
    }

    @Test
    void batchWithOneRejectedItemWritesEveryOtherItemOnceAndThatOneInItsStorableForm() {
        List<String> items = new ArrayList<>(List.of("a", "b", "bad-c", "d", "e"));

        writer("stored-c").write(items);

        assertThat(items).isEmpty();
        assertThat(written()).containsExactlyInAnyOrder("a", "b", "stored-c", "d", "e");
        assertThat(dropped).isEmpty();
    }

    @Test
    void itemWhoseStorableFormIsRejectedTooIsDroppedAndTheOthersWritten() {
        List<String> items = new ArrayList<>(List.of("a", "bad-b", "c"));

        writer("bad-still").write(items);

        assertThat(items).isEmpty();
        assertThat(written()).containsExactlyInAnyOrder("a", "c");
        assertThat(dropped).containsExactly("bad-b");
    }

    @Test
    void unreachableDatabaseLeavesExactlyTheUnwrittenItemsInOrder() {
        List<String> items = new ArrayList<>(List.of("a", "b", "bad-c", "d"));
        IsolatingWriter<String> writer = new IsolatingWriter<>(batch -> {
            write(batch);
            unreachable = batch.contains("b"); // the database goes away after the first half is written
        }, e -> e instanceof DataError, item -> "stored-c", dropped::add);

        assertThatThrownBy(() -> writer.write(items)).hasMessage("connection refused");

        assertThat(written()).containsExactly("a", "b");
        assertThat(items).containsExactly("bad-c", "d");
        unreachable = false;
        writer.write(items);
        assertThat(written()).containsExactly("a", "b", "stored-c", "d");
    }
}
