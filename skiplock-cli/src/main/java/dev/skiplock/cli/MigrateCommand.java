package dev.skiplock.cli;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code skiplock migrate}: applies schema migrations and exits. */
@Command(name = "migrate", description = "Apply schema migrations and exit.")
final class MigrateCommand implements Callable<Integer> {
    @ParentCommand
    Main cli;

    @Override
    public Integer call() {
        try (Skiplock skiplock = Skiplock.builder().url(cli.options().jdbcUrl())
                .config(SkiplockConfig.builder().build()).enqueueWarmUp(false).build()) {
            System.out.println("schema of " + skiplock.driverName() + " database is up to date");
        }
        return 0;
    }
}
