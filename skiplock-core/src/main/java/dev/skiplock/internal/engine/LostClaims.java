package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.JobStore;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims whose answer never reached this worker (the connection dropped after the claim
 * committed, or it is unknown whether it did). Their jobs are leased to this worker, which does
 * not run them; {@code unclaim_jobs} gives them back without using their attempt. It is tried at
 * once and then at every heartbeat until the claim's lease would have ended: a claim still
 * running on the server when the client gave up may commit after the first try. If the database
 * stays away longer than the lease, the reaper gets there first and the attempt counts as lost.
 */
final class LostClaims {
    private static final Logger LOG = LoggerFactory.getLogger(LostClaims.class);

    private record Claim(String queue, Instant giveUpAt) {
    }

    private final JobStore store;
    /** The worker's clock: when a claim's lease would have ended is this worker's own bookkeeping. */
    private final Clock clock;
    private final Map<UUID, Claim> claims = new ConcurrentHashMap<>();

    LostClaims(JobStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** The claim {@code claim} failed on the way back: give back whatever it took. */
    void giveBack(ClaimParams claim) {
        claims.put(claim.token(), new Claim(claim.queue(), clock.instant().plusMillis(claim.leaseMillis())));
        retry();
    }

    /** Tries every claim still to give back; forgets those whose lease would have ended. */
    void retry() {
        for (Map.Entry<UUID, Claim> entry : claims.entrySet()) {
            Claim claim = entry.getValue();
            try {
                int given = store.unclaimJobs(claim.queue(), entry.getKey());
                if (given > 0) {
                    LOG.warn("gave back {} jobs of a claim whose answer was lost; their attempt is not used", given);
                }
            } catch (RuntimeException | Error e) {
                // An Error too: the heartbeat calls this first, and its leases must still be extended
                LOG.warn("could not give back the jobs of a claim whose answer was lost; retrying at the next heartbeat: {}",
                        Timers.reason(e));
            }
            if (clock.instant().isAfter(claim.giveUpAt())) {
                claims.remove(entry.getKey());
            }
        }
    }
}
