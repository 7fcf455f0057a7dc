package dev.skiplock.conformance;

import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * PostgreSQL's complete_jobs as the tests run it on a connection of their own, bound as the
 * completer binds a batch of successes: one array per field of the outcomes.
 */
final class PostgresCompleteCall {
    private PostgresCompleteCall() {
    }

    /** complete_jobs of the driver {@code skiplock} runs on, as loaded from its jobs.sql. */
    static NamedStatement statement(Skiplock skiplock) {
        return SqlFile.load(FastPathContract.driver(skiplock).resourceRoot() + "/sql/jobs.sql").get("complete_jobs");
    }

    /** complete_jobs on {@code connection}, bound to the successes of the jobs {@code ids} under {@code tokens}. */
    static PreparedStatement prepare(Connection connection, NamedStatement complete, List<UUID> ids, List<UUID> tokens)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(complete.jdbcSql());
        List<String> names = complete.parameters();
        int size = ids.size();
        for (int i = 0; i < names.size(); i++) {
            statement.setArray(i + 1, switch (names.get(i)) {
                case "ids" -> connection.createArrayOf("uuid", ids.toArray());
                case "tokens" -> connection.createArrayOf("uuid", tokens.toArray());
                case "statuses" -> connection.createArrayOf("text", Collections.nCopies(size, "succeeded").toArray());
                case "delays_ms" -> connection.createArrayOf("int8", Collections.nCopies(size, 0L).toArray());
                case "results", "errors" -> connection.createArrayOf("text", new Object[size]);
                case "extra_attempts" -> connection.createArrayOf("int4", Collections.nCopies(size, 0).toArray());
                default -> throw new IllegalStateException("complete_jobs has a new parameter: " + names.get(i));
            });
        }
        return statement;
    }
}
