package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.spi.PoolSettings;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;
import org.sqlite.jdbc4.JDBC4PreparedStatement;

/** The pool's connections keep their prepared statements, and give each caller one as if new. */
class StatementKeepingConnectionTest {
    @TempDir
    Path folder;
    private SqliteConnections connections;

    @BeforeEach
    void file() throws SQLException {
        connections = new SqliteConnections("jdbc:sqlite:" + folder.resolve("jobs.db") + "?" + SqliteDriver.SETTINGS,
                SqliteDriver.BUSY_TIMEOUT_MILLIS);
        try (Connection connection = connections.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE t (v INTEGER)");
            statement.execute("INSERT INTO t VALUES (1), (2), (3)");
        }
    }

    @Test
    void aStatementPreparedAgainIsTheOneKeptAndTwoOpenAtOnceAreTwo() throws SQLException {
        try (Connection connection = connections.getConnection()) {
            PreparedStatement first = connection.prepareStatement("SELECT v FROM t");
            JDBC4PreparedStatement prepared = sqlite(first);
            first.close();
            try (PreparedStatement again = connection.prepareStatement("SELECT v FROM t");
                    PreparedStatement alongside = connection.prepareStatement("SELECT v FROM t")) {
                assertThat(sqlite(again)).isSameAs(prepared);
                assertThat(sqlite(alongside)).isNotSameAs(prepared);
                assertThat(again.getConnection()).isSameAs(connection);
            }
            assertThat(first.isClosed()).isTrue();
            assertThatThrownBy(first::executeQuery).isInstanceOf(SQLException.class).hasMessageContaining("closed");
        }
    }

    @Test
    void aKeptStatementForgetsTheParametersOfItsLastUse() throws SQLException {
        try (Connection connection = connections.getConnection()) {
            try (PreparedStatement bound = connection.prepareStatement("SELECT ?")) {
                bound.setInt(1, 42);
                assertThat(single(bound.executeQuery())).isEqualTo(42);
            }
            try (PreparedStatement unbound = connection.prepareStatement("SELECT ?")) {
                assertThat(single(unbound.executeQuery())).isNull();
            }
        }
    }

    /**
     * A read stopped before its last row keeps SQLite's read transaction open until its statement
     * is reset: a kept statement that were not would leave its connection reading that snapshot.
     */
    @Test
    void aReadStoppedBeforeItsLastRowDoesNotKeepItsConnectionOnAnOldSnapshot() throws SQLException {
        try (Connection reader = connections.getConnection(); Connection writer = connections.getConnection()) {
            PreparedStatement unfinished = reader.prepareStatement("SELECT v FROM t");
            JDBC4PreparedStatement leftOpen = sqlite(unfinished);
            ResultSet rows = unfinished.executeQuery();
            assertThat(rows.next()).isTrue();
            unfinished.close(); // its result set is left open, as a caller may
            PreparedStatement notAskedFor = reader.prepareStatement("SELECT v FROM t WHERE v > ?");
            notAskedFor.setInt(1, 0);
            assertThat(notAskedFor.execute()).isTrue(); // rows waiting, never asked for
            notAskedFor.close();
            PreparedStatement skipped = reader.prepareStatement("SELECT v FROM t WHERE v < ?");
            skipped.setInt(1, 9);
            assertThat(skipped.execute()).isTrue();
            assertThat(skipped.getMoreResults()).isFalse(); // the statement still holds its first row
            skipped.close();

            try (Statement statement = writer.createStatement()) {
                statement.executeUpdate("INSERT INTO t VALUES (4)");
            }

            try (PreparedStatement count = reader.prepareStatement("SELECT count(*) FROM t")) {
                assertThat(single(count.executeQuery())).isEqualTo(4);
            }
            assertThat(rows.isClosed()).isTrue();
            // The caller may still hold that result set: its statement is not lent again.
            assertThat(leftOpen.isClosed()).isTrue();
        }
    }

    /** The claim's shape: an autocommit UPDATE ... RETURNING. Its rows unread, it still commits and lets others write. */
    @Test
    void anUpdateWhoseReturnedRowsNobodyReadCommitsAndLetsOthersWrite() throws SQLException {
        SqliteConnections impatient = new SqliteConnections("jdbc:sqlite:" + folder.resolve("jobs.db") + "?"
                + SqliteDriver.SETTINGS, 50);
        try (Connection claimer = connections.getConnection(); Connection writer = impatient.getConnection()) {
            PreparedStatement claim = claimer.prepareStatement("UPDATE t SET v = v + 10 RETURNING v");
            assertThat(claim.execute()).isTrue();
            claim.close();
            PreparedStatement partly = claimer.prepareStatement("UPDATE t SET v = v + 10 WHERE v > ? RETURNING v");
            partly.setInt(1, 0);
            ResultSet returned = partly.executeQuery();
            assertThat(returned.next()).isTrue();
            partly.close();

            try (Statement statement = writer.createStatement()) {
                assertThat(statement.executeUpdate("INSERT INTO t VALUES (4)")).isEqualTo(1); // SQLITE_BUSY if a write stayed open
                try (ResultSet moved = statement.executeQuery("SELECT count(*) FROM t WHERE v > 20")) {
                    moved.next();
                    assertThat(moved.getInt(1)).isEqualTo(3);
                }
            }
        }
    }

    /** sqlite-jdbc closes a statement that failed on its data (malformed JSON here): it is dropped, not kept. */
    @Test
    void aStatementThatFailedIsClosedQuietlyAndTheNextPrepareWorks() throws SQLException {
        try (Connection connection = connections.getConnection()) {
            PreparedStatement failing = connection.prepareStatement("SELECT json_extract(?, '$.a')");
            failing.setString(1, "{");
            assertThatThrownBy(failing::executeQuery).isInstanceOf(SQLException.class).hasMessageContaining("JSON");
            failing.close();
            try (PreparedStatement again = connection.prepareStatement("SELECT json_extract(?, '$.a')")) {
                again.setString(1, "{\"a\": 7}");
                assertThat(single(again.executeQuery())).isEqualTo(7);
            }
        }
    }

    /** A constraint failure leaves sqlite-jdbc's statement open: it is reset, kept, and works for the next caller. */
    @Test
    void aStatementThatFailedAConstraintIsKeptAndWorksAgain() throws SQLException {
        try (Connection connection = connections.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE u (k INTEGER PRIMARY KEY)");
            statement.execute("INSERT INTO u VALUES (1)");
            PreparedStatement duplicate = connection.prepareStatement("INSERT INTO u VALUES (?)");
            JDBC4PreparedStatement prepared = sqlite(duplicate);
            duplicate.setInt(1, 1);
            assertThatThrownBy(duplicate::executeUpdate).isInstanceOf(SQLException.class)
                    .hasMessageContaining("CONSTRAINT");
            duplicate.close();
            try (PreparedStatement again = connection.prepareStatement("INSERT INTO u VALUES (?)")) {
                assertThat(sqlite(again)).isSameAs(prepared);
                again.setInt(1, 2);
                assertThat(again.executeUpdate()).isEqualTo(1);
            }
        }
    }

    /**
     * The pool Skiplock creates turns off sqlite-jdbc's generated keys (it would keep a statement of
     * its own on the kept one after every INSERT); a loan that asks for them anyway is not kept.
     */
    @Test
    void thePoolsConnectionsReturnNoGeneratedKeysAndALoanThatAskedIsNotKept() throws SQLException {
        HikariDataSource pool = (HikariDataSource) new SqliteDriver().createDataSource(
                "jdbc:sqlite:" + folder.resolve("jobs.db"), new PoolSettings(null, null, 2));
        try (Connection connection = pool.getConnection()) {
            PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?)");
            JDBC4PreparedStatement prepared = sqlite(insert);
            insert.setInt(1, 4);
            assertThat(insert.executeUpdate()).isEqualTo(1);
            try (ResultSet keys = insert.getGeneratedKeys()) {
                assertThat(keys.next()).isFalse();
            }
            insert.close();
            assertThat(prepared.isClosed()).isTrue();
        } finally {
            pool.close();
        }
    }

    @Test
    void aKeptStatementOfEveryColumnSeesAColumnAddedSinceItWasPrepared() throws SQLException {
        try (Connection connection = connections.getConnection(); Connection migrator = connections.getConnection()) {
            JDBC4PreparedStatement prepared;
            try (PreparedStatement every = connection.prepareStatement("SELECT * FROM t WHERE v = 1");
                    ResultSet row = every.executeQuery()) {
                prepared = sqlite(every);
                assertThat(row.getMetaData().getColumnCount()).isEqualTo(1);
            }
            try (Statement statement = migrator.createStatement()) {
                statement.execute("ALTER TABLE t ADD COLUMN w TEXT NOT NULL DEFAULT 'added'");
            }
            try (PreparedStatement every = connection.prepareStatement("SELECT * FROM t WHERE v = 1");
                    ResultSet row = every.executeQuery()) {
                assertThat(sqlite(every)).isSameAs(prepared);
                assertThat(row.next()).isTrue();
                assertThat(row.getMetaData().getColumnCount()).isEqualTo(2);
                assertThat(row.getString("w")).isEqualTo("added");
            }
        }
    }

    @Test
    void aStatementWhoseSettingsChangedIsClosedNotKept() throws SQLException {
        try (Connection connection = connections.getConnection()) {
            PreparedStatement limited = connection.prepareStatement("SELECT v FROM t");
            JDBC4PreparedStatement prepared = sqlite(limited);
            limited.setMaxRows(1);
            limited.close();
            assertThat(prepared.isClosed()).isTrue();
            try (PreparedStatement again = connection.prepareStatement("SELECT v FROM t")) {
                assertThat(sqlite(again)).isNotSameAs(prepared);
            }
        }
    }

    @Test
    void atMostSoManyAreKeptTheLeastRecentlyUsedClosedFirstAndClosingTheConnectionClosesTheRest()
            throws SQLException {
        Connection connection = connections.getConnection();
        List<JDBC4PreparedStatement> prepared = new ArrayList<>();
        for (int i = 0; i <= StatementKeepingConnection.KEPT; i++) {
            try (PreparedStatement statement = connection.prepareStatement("SELECT " + i)) {
                prepared.add(sqlite(statement));
            }
        }
        StatementKeepingConnection keeper = (StatementKeepingConnection) Proxy.getInvocationHandler(connection);
        assertThat(keeper.keptCount()).isEqualTo(StatementKeepingConnection.KEPT);
        assertThat(prepared.get(0).isClosed()).isTrue();
        assertThat(prepared.get(1).isClosed()).isFalse();

        connection.close();

        assertThat(prepared).allSatisfy(statement -> assertThat(statement.isClosed()).isTrue());
        assertThat(keeper.keptCount()).isZero();
    }

    /** HikariCP closes the statements a caller left open when the connection goes back to the pool. */
    @Test
    void aStatementLeftOpenWhenThePooledConnectionIsReturnedIsKeptForTheNextCaller() throws SQLException {
        HikariDataSource pool = (HikariDataSource) new SqliteDriver().createDataSource(
                "jdbc:sqlite:" + folder.resolve("jobs.db"), new PoolSettings(null, null, 2));
        try {
            SQLiteConnection physical;
            JDBC4PreparedStatement prepared;
            JDBC4PreparedStatement withRowsLeftOpen;
            try (Connection connection = pool.getConnection()) {
                physical = connection.unwrap(SQLiteConnection.class);
                PreparedStatement leftOpen = connection.prepareStatement("SELECT v FROM t WHERE v = ?");
                leftOpen.setInt(1, 2);
                prepared = sqlite(leftOpen);
                assertThat(single(leftOpen.executeQuery())).isEqualTo(2);
                PreparedStatement rowsLeftOpen = connection.prepareStatement("SELECT v FROM t");
                withRowsLeftOpen = sqlite(rowsLeftOpen);
                assertThat(rowsLeftOpen.executeQuery().next()).isTrue();
            }
            assertThat(withRowsLeftOpen.isClosed()).isTrue();
            // One thread borrowing again gets the connection it returned last (HikariCP's thread-local list).
            try (Connection connection = pool.getConnection();
                    PreparedStatement again = connection.prepareStatement("SELECT v FROM t WHERE v = ?")) {
                assertThat(connection.unwrap(SQLiteConnection.class)).isSameAs(physical);
                assertThat(sqlite(again)).isSameAs(prepared);
                again.setInt(1, 3);
                assertThat(single(again.executeQuery())).isEqualTo(3);
            }
        } finally {
            pool.close();
        }
    }

    private static JDBC4PreparedStatement sqlite(PreparedStatement statement) throws SQLException {
        return statement.unwrap(JDBC4PreparedStatement.class);
    }

    private static Object single(ResultSet rows) throws SQLException {
        try (rows) {
            assertThat(rows.next()).isTrue();
            return rows.getObject(1);
        }
    }
}
