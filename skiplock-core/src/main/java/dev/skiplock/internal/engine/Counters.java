package dev.skiplock.internal.engine;

import dev.skiplock.SkiplockMetrics;
import java.util.concurrent.atomic.LongAdder;

/** The engine's counters; read as one {@link SkiplockMetrics} snapshot. Thread-safe. */
public final class Counters {
    final LongAdder claimed = new LongAdder();
    final LongAdder succeeded = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder timedOut = new LongAdder();
    final LongAdder staleCompletions = new LongAdder();
    final LongAdder leasesLost = new LongAdder();
    final LongAdder adopted = new LongAdder();
    final LongAdder resumed = new LongAdder();
    final LongAdder released = new LongAdder();
    final LongAdder leasesReaped = new LongAdder();
    final LongAdder claimStatements = new LongAdder();
    final LongAdder completionBatches = new LongAdder();
    final LongAdder enqueuedToUnservedQueues = new LongAdder();

    public SkiplockMetrics snapshot() {
        return new SkiplockMetrics(claimed.sum(), succeeded.sum(), failed.sum(), retried.sum(), cancelled.sum(),
                timedOut.sum(), staleCompletions.sum(), leasesLost.sum(), adopted.sum(), resumed.sum(), released.sum(),
                leasesReaped.sum(), claimStatements.sum(), completionBatches.sum(), enqueuedToUnservedQueues.sum());
    }
}
