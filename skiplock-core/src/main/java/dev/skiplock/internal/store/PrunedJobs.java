package dev.skiplock.internal.store;

import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * What one batch of {@link JobStore#pruneFinished} deleted: how many jobs, and the greatest id
 * among them, where the run's next batch goes on ({@code null} when it deleted none).
 */
public record PrunedJobs(int deleted, UUID last) {
    /** The batch that deleted {@code ids}. */
    static PrunedJobs of(List<UUID> ids) {
        // the databases order ids as unsigned bytes, as their fixed-width lowercase text sorts (UUID.compareTo is signed)
        return new PrunedJobs(ids.size(), ids.stream().max(Comparator.comparing(UUID::toString)).orElse(null));
    }
}
