package dev.skiplock.cli;

import picocli.CommandLine.Option;

/** {@code --db URL}, shared by every command that talks to the database directly. */
public final class DatabaseOption {
    @Option(names = "--db", paramLabel = "URL", defaultValue = DatabaseUrl.DEFAULT,
            description = "JDBC URL or postgresql://… (default: ${DEFAULT-VALUE})")
    String db;

    public String jdbcUrl() {
        return DatabaseUrl.toJdbc(db);
    }
}
