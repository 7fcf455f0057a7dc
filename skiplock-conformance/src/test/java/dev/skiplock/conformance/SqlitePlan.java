package dev.skiplock.conformance;

import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** SQLite's plan of one statement of its SQL files ({@code EXPLAIN QUERY PLAN}), a line per step. */
final class SqlitePlan {
    /** Binds the parameter {@code name} at {@code index}; throws for a name it does not know. */
    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement statement, int index, String name, Driver driver) throws SQLException;
    }

    private SqlitePlan() {
    }

    /** The steps of the plan SQLite makes for {@code statement} of jobs.sql on a connection of {@code client}. */
    static List<String> of(Skiplock client, String statement, Binder binder) throws SQLException {
        return of(client, "jobs", statement, binder);
    }

    /** The steps of the plan SQLite makes for {@code statement} of {@code file}.sql on a connection of {@code client}. */
    static List<String> of(Skiplock client, String file, String statement, Binder binder) throws SQLException {
        return ofResource(client, FastPathContract.driver(client).resourceRoot() + "/sql/" + file + ".sql",
                statement, binder);
    }

    /** The steps of the plan SQLite makes for {@code statement} of the SQL file at {@code resource} (a class path name). */
    static List<String> ofResource(Skiplock client, String resource, String statement, Binder binder) throws SQLException {
        Driver driver = FastPathContract.driver(client);
        NamedStatement named = SqlFile.load(resource).get(statement);
        List<String> plan = new ArrayList<>();
        try (Connection connection = client.dataSource().getConnection();
                PreparedStatement explain = connection.prepareStatement("EXPLAIN QUERY PLAN " + named.jdbcSql())) {
            List<String> names = named.parameters();
            for (int i = 0; i < names.size(); i++) {
                binder.bind(explain, i + 1, names.get(i), driver);
            }
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.add(rows.getString("detail"));
                }
            }
        }
        return plan;
    }
}
