package dev.skiplock.conformance;

import java.time.Duration;

/**
 * How big a fault run is. The short form runs in every build ({@code mvn verify}); the long form
 * runs with {@code -Dskiplock.faults=long} (README, "Fault injection").
 *
 * @param healthyJobs    {@code fault.work} jobs (20–200 ms of work each; all must succeed)
 * @param commandJobs    {@code command} jobs (a 300 ms process each; adopted, not rerun, when their worker dies)
 * @param throwJobs      poison: always throws (3 attempts, then failed)
 * @param hangJobs       poison: hangs until its 1 s timeout (2 attempts, then timed_out)
 * @param exitJobs       poison: halts its worker's JVM (2 attempts, then failed as lost)
 * @param workers        {@code skiplock worker} processes kept running (restarted when they die)
 * @param concurrency    jobs at once per worker process
 * @param kills          workers SIGKILLed during the run
 * @param pauses         workers SIGSTOPped for longer than the lease, then SIGCONTed
 * @param databaseRestarts PostgreSQL restarts during the run (0 on SQLite)
 * @param faultEvery     time between two faults
 */
record FaultPlan(int healthyJobs, int commandJobs, int throwJobs, int hangJobs, int exitJobs, int workers,
        int concurrency, int kills, int pauses, int databaseRestarts, Duration faultEvery) {
    static final String PROPERTY = "skiplock.faults";

    static FaultPlan forThisRun(boolean databaseRestarts) {
        boolean longForm = "long".equals(System.getProperty(PROPERTY, "short"));
        if (longForm) {
            return new FaultPlan(20_000, 500, 20, 20, 6, 4, 4, 30, 10, databaseRestarts ? 5 : 0, Duration.ofSeconds(3));
        }
        return new FaultPlan(1_500, 60, 4, 4, 2, 3, 4, 3, 1, databaseRestarts ? 1 : 0, Duration.ofSeconds(3));
    }

    int jobs() {
        return healthyJobs + commandJobs + throwJobs + hangJobs + exitJobs;
    }

    String form() {
        return System.getProperty(PROPERTY, "short");
    }
}
