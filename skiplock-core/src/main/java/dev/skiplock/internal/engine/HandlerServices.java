package dev.skiplock.internal.engine;

import dev.skiplock.ExecutionHook;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.store.Stores;
import javax.sql.DataSource;

/**
 * What a durable job's context reaches beyond its execution: the stores (log lines, progress,
 * checkpoints, signals), the completer, the limits, and the database and hook of the handler's
 * own transactions.
 */
record HandlerServices(Stores stores, Completer completer, Outcomes outcomes, SkiplockConfig config,
        DataSource dataSource, ExecutionHook hook) {
}
