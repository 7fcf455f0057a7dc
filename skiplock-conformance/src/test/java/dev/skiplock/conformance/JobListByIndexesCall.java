package dev.skiplock.conformance;

import dev.skiplock.JobQuery;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * list_jobs or list_jobs_all_tenants of jobs.sql, the job list's read by the filters' indexes, run
 * alone. The store runs it only for a page the newest jobs below the cursor do not fill
 * (list_newest_jobs), which a list of common filters seldom leaves, so a test of it runs it itself.
 */
final class JobListByIndexesCall {
    private JobListByIndexesCall() {
    }

    /** The ids of {@code tenant}'s page of {@code query} (null: every tenant's), newest first. */
    static List<UUID> page(Skiplock client, String tenant, JobQuery query) {
        try (Connection connection = client.dataSource().getConnection()) {
            return page(connection, FastPathContract.driver(client), tenant, query);
        } catch (SQLException e) {
            throw new IllegalStateException("no connection", e);
        }
    }

    /** As {@link #page(Skiplock, String, JobQuery)}, on {@code connection}. */
    static List<UUID> page(Connection connection, Driver driver, String tenant, JobQuery query) {
        NamedStatement named = SqlFile.load(driver.resourceRoot() + "/sql/jobs.sql")
                .get(tenant == null ? "list_jobs_all_tenants" : "list_jobs");
        Map<String, Object> values = new HashMap<>();
        values.put("tenant", tenant);
        values.put("status", query.status() == null ? null : query.status().wireName());
        values.put("queue", query.queue());
        values.put("kind", query.kind());
        values.put("cursor", query.cursor());
        values.put("limit", query.limit());
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(named.jdbcSql())) {
            if (named.planPerCall()) {
                driver.dialect().planPerCall(statement);
            }
            for (int i = 1; i <= named.parameters().size(); i++) {
                String parameter = named.parameters().get(i - 1);
                if (!values.containsKey(parameter)) {
                    throw new IllegalStateException(named.name() + " has a parameter the list does not give: " + parameter);
                }
                switch (values.get(parameter)) {
                    case null -> statement.setNull(i, Types.NULL);
                    case UUID id -> driver.dialect().setUuid(statement, i, id);
                    case Integer number -> statement.setInt(i, number);
                    case Object text -> statement.setString(i, text.toString());
                }
            }
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    ids.add(UUID.fromString(rows.getString("id")));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(named.name() + " failed", e);
        }
        return ids;
    }

    /** Every page of {@code query} (its limit set to {@code limit}), following each page's last id. */
    static List<UUID> pages(Skiplock client, String tenant, JobQuery query, int limit) {
        List<UUID> listed = new ArrayList<>();
        List<UUID> page = page(client, tenant, query.withLimit(limit));
        listed.addAll(page);
        while (page.size() == limit) {
            if (listed.size() >= 1_000) {
                throw new AssertionError("pages of " + query + ": a list that came back to jobs it had listed");
            }
            page = page(client, tenant, query.withLimit(limit).withCursor(page.getLast()));
            listed.addAll(page);
        }
        return listed;
    }
}
