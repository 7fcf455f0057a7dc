package dev.skiplock.internal.engine;

import dev.skiplock.JobHandler;
import dev.skiplock.Names;
import dev.skiplock.RetryPolicy;

/**
 * A handler registered for one kind, with the type its args are read into.
 *
 * @param retryPolicy {@code null} uses the instance's default
 */
public record HandlerBinding<A>(String kind, Class<A> argsType, JobHandler<A> handler, RetryPolicy retryPolicy) {
    public HandlerBinding {
        Names.check("kind", kind);
        if (argsType == null) {
            throw new IllegalArgumentException("argsType: is required");
        }
        if (handler == null) {
            throw new IllegalArgumentException("handler: is required");
        }
    }
}
