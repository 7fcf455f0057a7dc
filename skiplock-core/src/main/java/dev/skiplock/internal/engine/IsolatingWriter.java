package dev.skiplock.internal.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a batch so that what one item carries can never block the others: a batch the database
 * rejects for its data is split in halves until the item at fault is alone; that item is written
 * in its storable form instead, and dropped if even that is rejected. Any other failure (the
 * database is unreachable) propagates with the unwritten items, in order, left in the list, so an
 * item already written is never written again.
 */
final class IsolatingWriter<T> {
    private static final Logger LOG = LoggerFactory.getLogger(IsolatingWriter.class);

    private final Consumer<List<T>> write;
    private final Predicate<RuntimeException> isDataError;
    private final UnaryOperator<T> storable;
    private final Consumer<T> dropped;

    /**
     * @param write       writes a batch in one statement, or throws
     * @param isDataError true for a failure caused by the data the statement carried
     * @param storable    the form of an item that any database can store
     * @param dropped     told of an item that was not written at all (not even its storable form)
     */
    IsolatingWriter(Consumer<List<T>> write, Predicate<RuntimeException> isDataError, UnaryOperator<T> storable,
            Consumer<T> dropped) {
        this.write = write;
        this.isDataError = isDataError;
        this.storable = storable;
        this.dropped = dropped;
    }

    /** Writes all of {@code items}, emptying the list; on a failure that is not about data, rethrows. */
    void write(List<T> items) {
        if (items.isEmpty()) {
            return;
        }
        try {
            write.accept(items);
            items.clear();
        } catch (RuntimeException e) {
            if (!isDataError.test(e)) {
                throw e;
            }
            if (items.size() == 1) {
                writeAlone(items.getFirst(), e);
                items.clear();
                return;
            }
            int half = items.size() / 2;
            List<T> firstHalf = new ArrayList<>(items.subList(0, half));
            List<T> secondHalf = new ArrayList<>(items.subList(half, items.size()));
            try {
                write(firstHalf);
            } finally {
                items.clear(); // what is left unwritten, in order
                items.addAll(firstHalf);
                items.addAll(secondHalf);
            }
            write(items);
        }
    }

    private void writeAlone(T item, RuntimeException rejected) {
        LOG.warn("the database rejected what one job carries; writing it in a storable form: {}", rejected.getMessage());
        try {
            write.accept(List.of(storable.apply(item)));
        } catch (RuntimeException e) {
            if (!isDataError.test(e)) {
                throw e;
            }
            LOG.error("the database rejected even the storable form of what one job carries; dropped: {}", e.getMessage());
            dropped.accept(item);
        }
    }
}
