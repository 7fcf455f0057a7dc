package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Names;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.StorableText;
import dev.skiplock.internal.store.EventStore;
import dev.skiplock.internal.store.Stores;
import java.util.UUID;

/**
 * What a handler sees of its execution. Its own database calls (progress, logged lines) run with
 * the execution's interrupts held back ({@link Execution#storeCall}); what it logs or reports is
 * made storable first ({@link StorableText}).
 */
final class ExecutionContext<A> extends ExecutionView<A> {
    private final Stores stores;
    private final Completer completer;

    ExecutionContext(A args, Execution execution, Stores stores, Completer completer) {
        super(args, execution);
        this.stores = stores;
        this.completer = completer;
    }

    @Override
    public boolean leaseLost() {
        return execution.leaseLost();
    }

    @Override
    public boolean mayBeResumed() {
        try {
            return execution.storeCall(() -> stores.jobs().executionRunning(execution.job().id(), execution.executionId()));
        } catch (RuntimeException e) {
            return true; // cannot tell: leave the execution to whoever may adopt it
        }
    }

    @Override
    public long loggedLines(String stream) {
        String checked = Names.check("stream", stream);
        return execution.storeCall(() -> stores.events().countLogs(execution.attempt(), checked));
    }

    @Override
    public void log(String stream, String message) {
        completer.submitLog(new EventStore.LogLine(execution.attempt(),
                Names.check("stream", stream), message == null ? "" : StorableText.of(message)));
    }

    @Override
    public boolean progress(Object data) {
        JsonNode tree = Json.MAPPER.valueToTree(data);
        String json = tree == null ? "null" : StorableText.of(tree).toString();
        return execution.storeCall(() -> stores.events().updateProgress(execution.attempt(), json));
    }
}
