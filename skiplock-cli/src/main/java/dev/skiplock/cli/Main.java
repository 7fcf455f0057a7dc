package dev.skiplock.cli;

import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobStateException;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockException;
import dev.skiplock.cli.bench.BenchCommand;
import dev.skiplock.cli.client.CliFailure;
import dev.skiplock.cli.client.JobCommands;
import dev.skiplock.cli.client.LogsCommand;
import dev.skiplock.cli.client.SubmitCommand;
import dev.skiplock.cli.client.TopCommand;
import dev.skiplock.cli.client.WorkersCommand;
import java.io.PrintWriter;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ScopeType;

/**
 * The {@code skiplock} command. Exit codes (API.md): 0 success, 1 the job did not succeed,
 * 2 bad usage or input (one line on stderr), 3 cannot reach the database or server.
 *
 * <p>{@code scope = INHERIT} hands {@code --help} and {@code --version} to every subcommand, and the
 * {@link GlobalOptions} are inherited the same way: both are accepted before or after the subcommand.
 */
@Command(name = "skiplock", mixinStandardHelpOptions = true, versionProvider = Main.Version.class, scope = ScopeType.INHERIT,
        description = "Durable job queue and worker engine on PostgreSQL and SQLite.",
        subcommands = {ServeCommand.class, WorkerCommand.class, SubmitCommand.class, JobCommands.Status.class,
            JobCommands.List.class, LogsCommand.class, JobCommands.Cancel.class, JobCommands.Remove.class,
            JobCommands.Retry.class, JobCommands.Signal.class, JobCommands.Queue.class, WorkersCommand.class,
            TopCommand.class, MigrateCommand.class, BenchCommand.class, DemoCommand.class, HelpCommand.class})
public final class Main {
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_UNREACHABLE = 3;

    @Mixin
    private GlobalOptions options;

    /** The global options, wherever on the command line they were given. */
    public GlobalOptions options() {
        return options;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The whole command tree with its error handlers, as {@link #run} executes it. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new Main());
        // Added here rather than in @Command to name it "completion" (picocli calls it generate-completion).
        CommandLine completion = new CommandLine(new AutoComplete.GenerateCompletion());
        completion.getCommandSpec().name("completion").usageMessage().description(
                "Print a bash/zsh completion script for skiplock.", "Enable it in this shell with:", "",
                "  source <(skiplock completion)", "");
        commandLine.addSubcommand("completion", completion);
        // Arguments are taken as typed: picocli would read "@file" as a file of arguments, also a
        // job's own after "--" (curl -d @body.json), and take one "@" of "@@x"
        commandLine.setExpandAtFiles(false);
        commandLine.setExecutionExceptionHandler(Main::handleFailure);
        commandLine.setParameterExceptionHandler((error, arguments) -> {
            error.getCommandLine().getErr().println("skiplock: " + error.getMessage());
            return EXIT_USAGE;
        });
        return commandLine;
    }

    private static int handleFailure(Exception error, CommandLine commandLine, CommandLine.ParseResult parsed) {
        PrintWriter err = commandLine.getErr();
        if (error instanceof CliFailure failure) {
            err.println("skiplock: " + failure.getMessage());
            return failure.exitCode();
        }
        if (error instanceof IllegalArgumentException || error instanceof JobNotFoundException
                || error instanceof JobStateException) {
            // a job that is not there or not in a state for the action: bad input, as the server's 404 and 409
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

    /** {@code --version}: the library's version as the build wrote it, never a second copy of it. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"skiplock " + Skiplock.version()};
        }
    }
}
