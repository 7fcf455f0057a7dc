package dev.skiplock.cli.client;

/** Ends a command with an exit code (API.md) and one line on stderr. */
public final class CliFailure extends RuntimeException {
    private final int exitCode;

    public CliFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
