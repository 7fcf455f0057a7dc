package dev.skiplock.conformance;

import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * oldest_queued or oldest_queued_by_priority of jobs.sql, run on a connection the test chooses (the
 * store picks one of the two by the queued jobs' count, so a test of both runs them itself).
 */
final class OldestQueuedCall {
    private OldestQueuedCall() {
    }

    /** Each queue's oldest due job of {@code tenant} (null: every tenant) by {@code statement}. */
    static Map<String, Instant> run(Connection connection, Driver driver, String statement, String tenant)
            throws SQLException {
        NamedStatement named = SqlFile.load(driver.resourceRoot() + "/sql/jobs.sql").get(statement);
        Map<String, Instant> oldest = new TreeMap<>();
        try (PreparedStatement query = connection.prepareStatement(named.jdbcSql())) {
            for (int i = 1; i <= named.parameters().size(); i++) {
                query.setString(i, tenant);
            }
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    oldest.put(rows.getString("queue"), driver.dialect().getInstant(rows, rows.findColumn("oldest")));
                }
            }
        }
        return oldest;
    }
}
