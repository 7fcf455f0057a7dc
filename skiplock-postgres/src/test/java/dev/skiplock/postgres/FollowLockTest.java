package dev.skiplock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.internal.sql.SqlFile;
import org.junit.jupiter.api.Test;

/** The follow lock and complete_jobs name the same slots of the follow key (the handshake: FollowLock). */
class FollowLockTest {
    @Test
    void completeJobsTriesTheSlotsAFollowerHolds() {
        String completeJobs = SqlFile.load("dev/skiplock/postgres/sql/jobs.sql").get("complete_jobs").jdbcSql();

        assertThat(completeJobs).contains("generate_series(0, " + (FollowLock.SLOTS - 1) + ") AS slot")
                .contains("pg_try_advisory_xact_lock(hashtext('skiplock-followers:' || current_schema()),")
                .contains("(pg_backend_pid() + slot) % " + FollowLock.SLOTS + ")");
    }
}
