package dev.skiplock.cli;

import dev.skiplock.SkiplockException;
import dev.skiplock.cli.bench.BenchCommand;
import dev.skiplock.cli.client.CliFailure;
import dev.skiplock.cli.client.JobCommands;
import dev.skiplock.cli.client.LogsCommand;
import dev.skiplock.cli.client.SubmitCommand;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code skiplock} command. Exit codes (API.md): 0 success, 1 the job did not succeed,
 * 2 bad usage or input (one line on stderr), 3 cannot reach the database or server.
 */
@Command(name = "skiplock", mixinStandardHelpOptions = true, version = "skiplock 0.1.0",
        description = "Durable job queue and worker engine on PostgreSQL and SQLite.",
        subcommands = {ServeCommand.class, WorkerCommand.class, SubmitCommand.class, JobCommands.Status.class,
            JobCommands.List.class, LogsCommand.class, JobCommands.Cancel.class, JobCommands.Remove.class,
            JobCommands.Retry.class, JobCommands.Queue.class, MigrateCommand.class, BenchCommand.class,
            DemoCommand.class})
public final class Main {
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_UNREACHABLE = 3;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        CommandLine commandLine = new CommandLine(new Main());
        commandLine.setExecutionExceptionHandler(Main::handleFailure);
        commandLine.setParameterExceptionHandler((error, arguments) -> {
            error.getCommandLine().getErr().println("skiplock: " + error.getMessage());
            return EXIT_USAGE;
        });
        return commandLine.execute(args);
    }

    private static int handleFailure(Exception error, CommandLine commandLine, CommandLine.ParseResult parsed) {
        PrintWriter err = commandLine.getErr();
        if (error instanceof CliFailure failure) {
            err.println("skiplock: " + failure.getMessage());
            return failure.exitCode();
        }
        if (error instanceof IllegalArgumentException) {
            err.println("skiplock: " + error.getMessage());
            return EXIT_USAGE;
        }
        if (error instanceof SkiplockException) {
            err.println("skiplock: " + oneLine(error.getMessage()));
            return EXIT_UNREACHABLE;
        }
        err.println("skiplock: " + error);
        return EXIT_FAILED;
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
