package dev.skiplock.conformance;

import java.time.Duration;

/**
 * How big a fault run is. The short form runs in every build ({@code mvn verify}); the long form
 * runs with {@code -Dskiplock.faults=long} (README, "Fault injection").
 */
record FaultPlan(Jobs jobs, Workers workers, Faults faults) {
    static final String PROPERTY = "skiplock.faults";

    /**
     * The jobs enqueued before the workers start.
     *
     * @param healthy         {@code fault.work} jobs (20–200 ms of work each; all must succeed)
     * @param commands        {@code command} jobs (a 300 ms process each; adopted, not rerun, when their worker dies)
     * @param throwing        poison: always throws (3 attempts, then failed)
     * @param hanging         poison: hangs until its 1 s timeout (2 attempts, then timed_out)
     * @param halting         poison: halts its worker's JVM (2 attempts, then failed as lost)
     * @param hostile         Java jobs that log, report progress and return (half) or throw (half) NUL
     *                        characters and lone surrogates
     * @param hostileCommands command jobs printing NUL bytes and invalid UTF-8 on stdout and stderr
     * @param diamonds        dependency diamonds A, B → C → D whose parents A and B become runnable at
     *                        the same moment, spread over the fault window
     * @param failingDiamonds of those, diamonds whose parent A always throws (1 attempt): C and D fail
     */
    record Jobs(int healthy, int commands, int throwing, int hanging, int halting, int hostile, int hostileCommands,
            int diamonds, int failingDiamonds) {
        int total() {
            return healthy + commands + throwing + hanging + halting + hostile + hostileCommands + 4 * diamonds;
        }
    }

    /**
     * The {@code skiplock worker} processes, kept running (restarted when they die).
     *
     * @param count        processes
     * @param concurrency  jobs at once per process
     * @param proxied      of those, processes that reach PostgreSQL through a {@link FaultProxy} (none on SQLite)
     * @param retaining    of those (others than the proxied ones), processes that keep finished jobs
     *                     only {@code retention} and prune every {@code pruneInterval}
     * @param schedulers   {@code skiplock serve --concurrency 0} processes running the same cron schedule
     *                     ({@link #CRON_SCHEDULE}: a {@code fault.cron} job per slot), restarted when they die
     */
    record Workers(int count, int concurrency, int proxied, int retaining, Duration retention, Duration pruneInterval,
            int schedulers) {
        static final String CRON_SCHEDULE = "@every 1s";
    }

    /**
     * What is done to the workers, the database and the jobs while they run.
     *
     * @param kills            workers SIGKILLed
     * @param pauses           workers SIGSTOPped for longer than the lease, then SIGCONTed
     * @param databaseRestarts PostgreSQL restarts (0 on SQLite)
     * @param every            time between two of the faults above
     * @param cutEvery         time between two cuts of every connection of one proxied worker
     * @param claimCutEvery    the proxy drops the answer of every n-th claim that took jobs (after its commit)
     * @param retries          {@code retry} calls (public API) on finished {@code fault.work} jobs
     * @param cancels          {@code cancel} calls on running {@code fault.work} jobs
     * @param schedulerKills   cron schedulers SIGKILLed (one of the {@code every} faults each)
     * @param schedulerPauses  cron schedulers SIGSTOPped a few slots long, then SIGCONTed: they fire the
     *                         slots they missed, which the other scheduler enqueued
     */
    record Faults(int kills, int pauses, int databaseRestarts, Duration every, Duration cutEvery, int claimCutEvery,
            int retries, int cancels, int schedulerKills, int schedulerPauses) {
        /** How long the faults above take to inject. */
        Duration window() {
            return every.multipliedBy(kills + pauses + databaseRestarts + schedulerKills + schedulerPauses);
        }
    }

    static FaultPlan forThisRun(boolean hasServer) {
        boolean longForm = "long".equals(System.getProperty(PROPERTY, "short"));
        Duration retention = Duration.ofSeconds(2);
        Duration pruneInterval = Duration.ofMillis(500);
        if (longForm) {
            return new FaultPlan(new Jobs(20_000, 500, 20, 20, 6, 100, 100, 200, 20),
                    new Workers(4, 4, hasServer ? 2 : 0, 1, retention, pruneInterval, 2),
                    new Faults(30, 10, hasServer ? 5 : 0, Duration.ofSeconds(3), Duration.ofSeconds(5), 10, 100, 50, 2, 2));
        }
        return new FaultPlan(new Jobs(1_500, 60, 4, 4, 2, 10, 10, 20, 2),
                new Workers(3, 4, hasServer ? 1 : 0, 1, retention, pruneInterval, 2),
                new Faults(3, 1, hasServer ? 1 : 0, Duration.ofSeconds(3), Duration.ofSeconds(4), 10, 10, 5, 0, 1));
    }

    String form() {
        return System.getProperty(PROPERTY, "short");
    }
}
