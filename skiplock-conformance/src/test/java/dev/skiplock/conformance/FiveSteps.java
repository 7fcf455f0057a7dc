package dev.skiplock.conformance;

import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A job of five steps that appends each step's name to a ledger file when its body runs, so a test
 * counts the executions of every step across processes. In a worker that is to be killed, step 3
 * prints {@code in s3} and blocks.
 */
final class FiveSteps {
    private FiveSteps() {
    }

    static JobHandler<WorkflowContract.Flow> handler(Path ledger, boolean blockInStepThree) {
        return context -> {
            int sum = 0;
            for (int i = 1; i <= 5; i++) {
                int step = i;
                sum += context.step("s" + step, Integer.class, () -> {
                    append(ledger, "s" + step);
                    if (step == 3 && blockInStepThree) {
                        System.out.println("in s3 " + context.job().id());
                        System.out.flush();
                        ContractBase.blockUntilInterrupted(); // the test kills this process here
                    }
                    return step * step;
                });
            }
            return JobOutcome.complete(sum);
        };
    }

    private static void append(Path ledger, String line) {
        try {
            Files.writeString(ledger, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
