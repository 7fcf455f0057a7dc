package dev.skiplock.internal.store;

import dev.skiplock.SkiplockException;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the driver's {@code migrations/NNNN_name.sql} files that are not yet recorded in
 * {@code skiplock_migrations}, all in one transaction under the driver's migration lock, so any
 * number of processes may start at once and exactly one applies each version.
 */
public final class Migrator {
    private static final Logger LOG = LoggerFactory.getLogger(Migrator.class);
    private final DataSource dataSource;
    private final Driver driver;
    private final SqlRunner sql;

    public Migrator(DataSource dataSource, Driver driver) {
        this.dataSource = dataSource;
        this.driver = driver;
        this.sql = SqlRunner.forTable(dataSource, driver, "migrations");
    }

    /** Applies what is missing; returns the names applied now (empty when up to date). */
    public List<String> migrate() {
        try (Connection connection = dataSource.getConnection()) {
            // the migrations are written for READ COMMITTED: PostgreSQL's 0023 copies the folded counts
            // after its lock waited for a fold of an older process; in the snapshot of the
            // transaction's first statement it would copy them without that fold
            return ReadCommitted.during(connection, () -> migrate(connection));
        } catch (SQLException e) {
            throw new SkiplockException(driver.name() + " migration failed: " + e.getMessage(), e);
        }
    }

    private List<String> migrate(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            return migrateInPoolTransaction(connection);
        }
        TransactionEnds.begin(connection);
        List<String> applied;
        try {
            applied = migrateInTransaction(connection);
        } catch (RuntimeException | SQLException e) {
            TransactionEnds.rollBack(connection, e);
            throw e;
        }
        TransactionEnds.commit(connection);
        return applied;
    }

    /** A pool that hands out connections in a transaction: commits that one, and leaves the connection in one. */
    private List<String> migrateInPoolTransaction(Connection connection) throws SQLException {
        try {
            List<String> applied = migrateInTransaction(connection);
            connection.commit();
            return applied;
        } catch (RuntimeException | SQLException e) {
            connection.rollback();
            throw e;
        }
    }

    /**
     * The migrations this library knows that the schema lacks, in order (all of them when nothing was
     * ever migrated), without changing anything.
     *
     * @throws dev.skiplock.SchemaNewerException if the schema was migrated by a newer Skiplock
     */
    public List<String> pending() {
        Set<Integer> done = new HashSet<>();
        try (Connection connection = dataSource.getConnection()) {
            try {
                done.addAll(sql.query(connection, "applied_migrations", Params.of(), row -> row.getInt("version")));
            } catch (RuntimeException noTableYet) {
                // never migrated: the migrations table does not exist, every migration is pending
            }
        } catch (SQLException e) {
            throw new SkiplockException("cannot connect to the " + driver.name() + " database: " + e.getMessage(), e);
        }
        requireKnown(done);
        return driver.migrations().stream().filter(name -> !done.contains(version(name))).toList();
    }

    private void requireKnown(Set<Integer> done) {
        int newestKnown = driver.migrations().stream().mapToInt(Migrator::version).max().orElse(0);
        int newestApplied = done.stream().mapToInt(Integer::intValue).max().orElse(0);
        if (newestApplied > newestKnown) {
            // A schema migrated by a newer Skiplock may rely on statements this build does not run
            // (0005 moved status events from triggers into the statements): refuse rather than
            // write jobs without their events.
            throw new dev.skiplock.SchemaNewerException(driver.name() + " schema is at migration " + newestApplied
                    + ", newer than this Skiplock knows (" + newestKnown + "): upgrade this process");
        }
    }

    private List<String> migrateInTransaction(Connection connection) throws SQLException {
        sql.query(connection, "lock_migrations", Params.of(), row -> 1);
        sql.update(connection, "create_migrations_table", Params.of());
        Set<Integer> done = new HashSet<>(sql.query(connection, "applied_migrations", Params.of(),
                row -> row.getInt("version")));
        requireKnown(done);
        List<String> names = driver.migrations().stream()
                .filter(name -> !done.contains(version(name)))
                .toList();
        for (String name : names) {
            runScript(connection, name);
            sql.update(connection, "record_migration", Params.of("version", version(name), "name", name));
            LOG.info("applied {} migration {}", driver.name(), name);
        }
        return names;
    }

    private void runScript(Connection connection, String name) throws SQLException {
        String script = SqlFile.readResource(driver.resourceRoot() + "/migrations/" + name + ".sql");
        try (Statement statement = connection.createStatement()) {
            for (String part : splitStatements(script)) {
                statement.execute(part);
            }
        }
    }

    /**
     * Splits a migration into statements: each ends with ';' at the end of a line, except inside a
     * PostgreSQL {@code $$} body or a SQLite trigger's {@code BEGIN … END;} block.
     */
    static List<String> splitStatements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inDollarQuote = false;
        boolean inTriggerBody = false;
        for (String line : script.split("\n")) {
            String code = line.replaceAll("--.*$", "").strip();
            current.append(line).append('\n');
            if ((code.length() - code.replace("$$", "").length()) / 2 % 2 == 1) {
                inDollarQuote = !inDollarQuote;
            }
            String upper = code.toUpperCase(java.util.Locale.ROOT);
            if (!inDollarQuote && upper.equals("BEGIN")) {
                inTriggerBody = true;
            }
            boolean ends = code.endsWith(";") && !inDollarQuote && (!inTriggerBody || upper.equals("END;"));
            if (ends) {
                inTriggerBody = false;
                String statement = current.toString().strip();
                statements.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().replaceAll("(?m)--.*$", "").isBlank()) {
            throw new SkiplockException("migration ends without ';': " + current.toString().strip());
        }
        return statements;
    }

    static int version(String migrationName) {
        int underscore = migrationName.indexOf('_');
        if (underscore <= 0) {
            throw new SkiplockException("migration name must be NNNN_name, got " + migrationName);
        }
        return Integer.parseInt(migrationName.substring(0, underscore));
    }
}
