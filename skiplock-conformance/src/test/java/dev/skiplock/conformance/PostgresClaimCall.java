package dev.skiplock.conformance;

import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.internal.store.ClaimFloor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * PostgreSQL's claim_jobs as the tests run it on a connection of their own (so that they choose
 * which connection plans it), with the parameters the claimer binds: queue {@code default}, a
 * fresh token, a floor or none.
 */
final class PostgresClaimCall {
    private PostgresClaimCall() {
    }

    /** claim_jobs of the driver {@code skiplock} runs on, as loaded from its jobs.sql. */
    static NamedStatement statement(Skiplock skiplock) {
        return SqlFile.load(FastPathContract.driver(skiplock).resourceRoot() + "/sql/jobs.sql").get("claim_jobs");
    }

    /** claim_jobs on {@code connection}, bound to claim up to {@code limit} jobs from {@code floor} (null: from the start). */
    static PreparedStatement prepare(Connection connection, NamedStatement claim, ClaimFloor floor, int limit)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(claim.jdbcSql());
        List<String> names = claim.parameters();
        for (int i = 0; i < names.size(); i++) {
            statement.setObject(i + 1, switch (names.get(i)) {
                case "queue" -> "default";
                case "worker" -> "worker-1";
                case "host" -> "host-1";
                case "token" -> UUID.randomUUID();
                case "lease_ms" -> 60_000L;
                case "resumable_kinds" -> "[]";
                case "limit" -> limit;
                case "floor_priority" -> floor == null ? Integer.MAX_VALUE + 1L : (long) floor.priority();
                case "floor_recent_at" -> floor == null ? null : floor.recentFrom().atOffset(ZoneOffset.UTC);
                case "floor_at" -> floor == null ? null : floor.availableAt().atOffset(ZoneOffset.UTC);
                case "floor_id" -> floor == null ? null : floor.id();
                default -> throw new IllegalStateException("claim_jobs has a new parameter: " + names.get(i));
            });
        }
        return statement;
    }

    /**
     * Pages of skiplock_jobs_claimable read in this transaction so far, found in shared buffers or
     * not (PostgreSQL 15 adds counts of earlier transactions it has not reported yet: compare two
     * readings).
     */
    static long claimIndexPages(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT pg_stat_get_xact_blocks_fetched(CAST('skiplock_jobs_claimable' AS regclass))")) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Runs claim_jobs on {@code connection} for up to {@code limit} jobs from {@code floor} (null: the start); the ids claimed, in claim order. */
    static List<String> claimIds(Connection connection, NamedStatement claim, ClaimFloor floor, int limit)
            throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement statement = prepare(connection, claim, floor, limit);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getString("id"));
            }
        }
        return ids;
    }
}
