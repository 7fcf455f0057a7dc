package dev.skiplock.conformance;

import dev.skiplock.JobOutcome;
import dev.skiplock.Skiplock;
import java.time.Duration;

/**
 * A worker process for crash tests: runs queue {@code default} with the test timings; its
 * {@code work} handler prints {@code started <id> <attempt>} and then blocks, so the test can kill
 * the process (SIGKILL) in the middle of a job. Arguments: the JDBC URL.
 */
public final class WorkerMain {
    private WorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        Skiplock skiplock = Skiplock.builder()
                .url(args[0])
                .config(ContractBase.fastConfig().queue("default", 1).build())
                .handler("work", LeaseContract.Work.class, context -> {
                    System.out.println("started " + context.job().id() + " " + context.attempt());
                    System.out.flush();
                    ContractBase.blockUntilInterrupted(); // the test kills this process while it sleeps here
                    return JobOutcome.complete();
                })
                .build()
                .start();
        System.out.println("ready " + skiplock.config().workerId());
        System.out.flush();
        Thread.currentThread().join();
    }
}
