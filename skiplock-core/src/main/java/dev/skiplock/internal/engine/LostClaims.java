package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.JobStore;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims whose answer never reached this worker (the connection dropped after the claim
 * committed, or it is unknown whether it did). Their jobs are leased to this worker, which does
 * not run them; {@code unclaim_jobs} gives them back without using their attempt, at once or, while
 * the database is unreachable, at each heartbeat until it succeeds (an attempt is counted only for
 * an execution; if the database stays away longer than the lease, the reaper gets there first and
 * the attempt counts as lost).
 */
final class LostClaims {
    private static final Logger LOG = LoggerFactory.getLogger(LostClaims.class);

    private final JobStore store;
    private final Set<UUID> tokens = ConcurrentHashMap.newKeySet();

    LostClaims(JobStore store) {
        this.store = store;
    }

    /** The claim under {@code token} failed on the way back: give back whatever it took. */
    void giveBack(UUID token) {
        tokens.add(token);
        retry();
    }

    /** Tries every claim still to give back; keeps the ones the database could not take yet. */
    void retry() {
        for (UUID token : tokens) {
            try {
                int given = store.unclaim(token);
                tokens.remove(token);
                if (given > 0) {
                    LOG.warn("gave back {} jobs of a claim whose answer was lost; their attempt is not used", given);
                }
            } catch (RuntimeException e) {
                LOG.warn("could not give back the jobs of a claim whose answer was lost; retrying at the next heartbeat: {}",
                        e.getMessage());
                return;
            }
        }
    }
}
