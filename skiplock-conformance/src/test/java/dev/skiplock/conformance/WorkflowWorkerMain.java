package dev.skiplock.conformance;

import dev.skiplock.Skiplock;
import java.nio.file.Path;

/**
 * A worker process for the workflow crash test: runs {@link FiveSteps} (blocking in step 3) on
 * queue {@code default} with the test timings. Arguments: the JDBC URL, the ledger file.
 */
public final class WorkflowWorkerMain {
    private WorkflowWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        Skiplock.builder()
                .url(args[0])
                .config(ContractBase.fastConfig().queue("default", 1).build())
                .handler("five", WorkflowContract.Flow.class, FiveSteps.handler(Path.of(args[1]), true))
                .build()
                .start();
        Thread.currentThread().join();
    }
}
