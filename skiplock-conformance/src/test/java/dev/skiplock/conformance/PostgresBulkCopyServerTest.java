package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.spi.BulkCopy;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's bulk writer against the server, with a batch large enough to go out in several
 * chunks (about 200,000 characters): every row arrives as written, and a row the server rejects in
 * the last chunk fails the copy with the server's own error, leaving a connection that still works
 * once its transaction is rolled back.
 */
class PostgresBulkCopyServerTest {
    private static final int ROWS = 2_000;
    private static final String COPY = "COPY copied (n, note) FROM STDIN";

    @Test
    void aBatchOfSeveralChunksArrivesRowForRow() throws SQLException {
        try (Connection connection = connection()) {
            long copied = bulkCopy().copy(connection, COPY, rows(null));

            assertThat(copied).isEqualTo(ROWS);
            try (Statement query = connection.createStatement();
                    ResultSet sums = query.executeQuery("SELECT count(*), sum(n), count(DISTINCT note), bool_and("
                            + "note = 'row ' || n || E'\\ttab\\\\ and ünï ' || repeat('x', 80)) FROM copied")) {
                assertThat(sums.next()).isTrue();
                assertThat(sums.getLong(1)).isEqualTo(ROWS);
                assertThat(sums.getLong(2)).isEqualTo((long) ROWS * (ROWS - 1) / 2);
                assertThat(sums.getLong(3)).isEqualTo(ROWS);
                assertThat(sums.getBoolean(4)).isTrue();
            }
            connection.rollback();
        }
    }

    @Test
    void aRowRejectedInTheLastChunkFailsTheCopyWithTheServersErrorAndTheConnectionStillWorks() throws SQLException {
        try (Connection connection = connection()) {
            List<Object[]> rows = rows("not a number");

            assertThatThrownBy(() -> bulkCopy().copy(connection, COPY, rows)).isInstanceOf(SQLException.class)
                    .satisfies(failure -> assertThat(((SQLException) failure).getSQLState())
                            .as("invalid_text_representation").isEqualTo("22P02"));
            connection.rollback();
            try (Statement query = connection.createStatement();
                    ResultSet one = query.executeQuery("SELECT 1")) {
                assertThat(one.next()).isTrue();
                assertThat(one.getInt(1)).isEqualTo(1);
            }
        }
    }

    /** {@link #ROWS} rows of about 100 characters; with {@code lastN}, the last row's number is that text. */
    private static List<Object[]> rows(String lastN) {
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < ROWS; n++) {
            Object number = lastN != null && n == ROWS - 1 ? lastN : n;
            rows.add(new Object[] {number, "row " + n + "\ttab\\ and ünï " + "x".repeat(80)});
        }
        return rows;
    }

    /** A connection in a transaction of its own, with the table {@code copied} dropped at its end. */
    private static Connection connection() throws SQLException {
        Connection connection = DriverManager.getConnection(PostgresTestDatabase.server());
        connection.setAutoCommit(false);
        try (Statement setup = connection.createStatement()) {
            setup.execute("CREATE TEMPORARY TABLE copied (n integer NOT NULL, note text NOT NULL) ON COMMIT DROP");
        }
        return connection;
    }

    private static BulkCopy bulkCopy() {
        return ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(driver -> driver.name().equals("postgres")).findFirst().orElseThrow()
                .bulkCopy().orElseThrow();
    }
}
