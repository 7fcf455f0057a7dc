package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.spi.Dialect;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The arrays {@code complete_jobs} takes on PostgreSQL, bound by the dialect as the store binds
 * them ({@code Dialect.setArray}: the ids and tokens as a {@code uuid[]} text the dialect writes
 * itself, the rest as pgjdbc encodes a {@code String[]}, {@code Long[]} or {@code Integer[]}), reach
 * the database as the same values, NULL elements and empty arrays included, whether pgjdbc sends the
 * statement unnamed or server-prepared; and binding them asks the database nothing.
 */
class PostgresArrayParametersTest {
    private static final UUID[] IDS = {UUID.fromString("00000000-0000-0000-0000-000000000000"),
            UUID.fromString("ffffffff-ffff-ffff-ffff-ffffffffffff"), UUID.fromString("80000000-0000-0000-8000-000000000000"),
            UUID.fromString("7fffffff-ffff-ffff-7fff-ffffffffffff"), UUID.fromString("019ad1c3-6f2e-7c41-9a3b-5d2e8f10c4a7"),
            UUID.fromString("01234567-89ab-cdef-fedc-ba9876543210"), null, UUID.randomUUID()};
    /** What an error or a result may hold that a text array's literal would have to quote or escape. */
    private static final String[] TEXTS = {"succeeded", "", "NULL", "null", "a \"quoted\" word", "back\\slash",
            "{braces}", "a, comma", " spaces ", "tab\tand\nnewline", "ünïcödé ✓ 𝄞", null, "{\"result\": [1, 2]}"};
    private static final Long[] DELAYS = {0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, null};
    private static final Integer[] EXTRA_ATTEMPTS = {0, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, null};

    /** prepareThreshold -1: pgjdbc prepares the statement at once; 0: never (unnamed, planned per call). */
    @ParameterizedTest
    @ValueSource(ints = {-1, 0})
    void everyArrayReachesTheDatabaseAsItsValues(int prepareThreshold) throws SQLException {
        Dialect dialect = postgresDialect();
        String url = PostgresTestDatabase.server();
        try (Connection connection = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "prepareThreshold=" + prepareThreshold);
                PreparedStatement statement = connection.prepareStatement("SELECT CAST(? AS uuid[]), CAST(? AS text[]),"
                        + " CAST(? AS int8[]), CAST(? AS int4[]), cardinality(CAST(? AS uuid[]))")) {
            for (int round = 0; round < 3; round++) { // past the statement's preparation, in either mode
                dialect.setArray(statement, 1, "uuid", IDS);
                dialect.setArray(statement, 2, "text", TEXTS);
                dialect.setArray(statement, 3, "int8", DELAYS);
                dialect.setArray(statement, 4, "int4", EXTRA_ATTEMPTS);
                dialect.setArray(statement, 5, "uuid", new UUID[0]);
                try (ResultSet row = statement.executeQuery()) {
                    assertThat(row.next()).isTrue();
                    assertThat((Object[]) row.getArray(1).getArray()).containsExactly((Object[]) IDS);
                    assertThat((Object[]) row.getArray(2).getArray()).containsExactly((Object[]) TEXTS);
                    assertThat((Object[]) row.getArray(3).getArray()).containsExactly((Object[]) DELAYS);
                    assertThat((Object[]) row.getArray(4).getArray()).containsExactly((Object[]) EXTRA_ATTEMPTS);
                    assertThat(row.getInt(5)).isZero();
                }
            }
        }
    }

    /** A batch's worth of ids, each in its place: the text the dialect writes has no offset error. */
    @Test
    void aThousandIdsKeepTheirOrder() throws SQLException {
        Dialect dialect = postgresDialect();
        UUID[] ids = new UUID[1_000];
        Arrays.setAll(ids, i -> i % 97 == 0 ? null : UUID.randomUUID());
        try (Connection connection = DriverManager.getConnection(PostgresTestDatabase.server());
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT id::text, ordinality FROM unnest(CAST(? AS uuid[])) WITH ORDINALITY AS u(id, ordinality)")) {
            dialect.setArray(statement, 1, "uuid", ids);
            try (ResultSet row = statement.executeQuery()) {
                for (UUID id : ids) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getString(1)).isEqualTo(id == null ? null : id.toString());
                }
                assertThat(row.next()).isFalse();
            }
        }
    }

    /** Here the transaction is aborted before the binding, so any statement it sent would fail it. */
    @Test
    void bindingTheArraysAsksTheDatabaseNothing() throws SQLException {
        Dialect dialect = postgresDialect();
        try (Connection connection = DriverManager.getConnection(PostgresTestDatabase.server())) {
            connection.setAutoCommit(false);
            PostgresTestDatabase.abort(connection); // from here every statement on this connection fails
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT CAST(? AS uuid[]), CAST(? AS text[]), CAST(? AS int8[]), CAST(? AS int4[])")) {
                dialect.setArray(statement, 1, "uuid", IDS);
                dialect.setArray(statement, 2, "text", TEXTS);
                dialect.setArray(statement, 3, "int8", DELAYS);
                dialect.setArray(statement, 4, "int4", EXTRA_ATTEMPTS);
            } finally {
                connection.rollback();
            }
        }
    }

    private static Dialect postgresDialect() {
        return ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(driver -> driver.name().equals("postgres")).findFirst().orElseThrow().dialect();
    }
}
