package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.spi.Dialect;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGResultSetMetaData;

/**
 * The PostgreSQL dialect reads a value the same whether it came as text (a statement's first uses)
 * or in binary (once pgjdbc server-prepared it; the dialect then decodes the bytes itself):
 * <ul>
 *   <li>a {@code timestamptz}: the same instants as pgjdbc's own {@code OffsetDateTime}, to the
 *       microsecond, before and after 2000-01-01 and 1970, before the common era, and for the
 *       infinities and NULL; a {@code timestamp} (no zone) as pgjdbc reads it too, at UTC;</li>
 *   <li>a {@code uuid}: the same UUIDs as pgjdbc's {@code getObject(column, UUID.class)}, with every
 *       bit of both halves (the sign bits set and clear, a version 7 id as Skiplock draws them), and
 *       NULL; in binary without pgjdbc's {@code getObject}, the way the JIT compiled for every
 *       claimed job's ids (issue #12).</li>
 * </ul>
 * Reading either asks the database nothing. It binds an instant as pgjdbc binds it, and binding one
 * asks the database nothing either.
 */
class PostgresWireValuesTest {
    private static final List<String> VALUES = List.of("2026-11-27 13:29:02.170602+00", "2000-01-01 00:00:00+00",
            "1999-12-31 23:59:59.999999+00", "1970-01-01 00:00:00.000001+00", "1969-12-31 23:59:59.999999+00",
            "1899-03-04 05:06:07.080901+00", "2000-01-01 00:00:00.000001+00", "4713-01-01 00:00:00+00",
            "0044-03-15 12:00:00+00 BC", "infinity", "-infinity");
    /** {@code timestamp} (no zone) values: pgjdbc reads their wall time at UTC. */
    private static final List<String> ZONELESS = List.of("2026-11-27 13:29:02.170602", "1969-12-31 23:59:59.999999",
            "0044-03-15 12:00:00 BC", "infinity", "-infinity");

    private static final List<String> UUIDS = List.of("00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-8000-000000000000",
            "7fffffff-ffff-ffff-7fff-ffffffffffff", "019ad1c3-6f2e-7c41-9a3b-5d2e8f10c4a7",
            "01234567-89ab-cdef-fedc-ba9876543210");

    /** prepareThreshold -1: pgjdbc asks for every result in binary; 0: never prepares, so text. */
    @ParameterizedTest
    @ValueSource(ints = {-1, 0})
    void everyTimestampReadsAsPgjdbcReadsIt(int prepareThreshold) throws SQLException {
        Dialect dialect = postgresDialect();
        String url = PostgresTestDatabase.server();
        StringBuilder select = new StringBuilder("SELECT ");
        for (int i = 0; i < VALUES.size(); i++) {
            select.append("CAST(? AS timestamptz), ");
        }
        select.append("CAST(NULL AS timestamptz)");
        ZONELESS.forEach(value -> select.append(", CAST(? AS timestamp)"));
        try (Connection connection = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "prepareThreshold=" + prepareThreshold);
                PreparedStatement statement = connection.prepareStatement(select.toString())) {
            for (int i = 0; i < VALUES.size(); i++) {
                statement.setString(i + 1, VALUES.get(i));
            }
            for (int i = 0; i < ZONELESS.size(); i++) {
                statement.setString(VALUES.size() + 1 + i, ZONELESS.get(i));
            }
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getMetaData().unwrap(PGResultSetMetaData.class).getFormat(1))
                        .as("the wire format this run reads").isEqualTo(prepareThreshold < 0 ? 1 : 0);
                List<Instant> read = new ArrayList<>();
                List<Instant> pgjdbc = new ArrayList<>();
                for (int column = 1; column <= VALUES.size(); column++) {
                    read.add(dialect.getInstant(row, column));
                    pgjdbc.add(row.getObject(column, OffsetDateTime.class).toInstant());
                }
                assertThat(read).containsExactlyElementsOf(pgjdbc);
                assertThat(read.subList(0, 9)).containsExactly(Instant.parse("2026-11-27T13:29:02.170602Z"),
                        Instant.parse("2000-01-01T00:00:00Z"), Instant.parse("1999-12-31T23:59:59.999999Z"),
                        Instant.parse("1970-01-01T00:00:00.000001Z"), Instant.parse("1969-12-31T23:59:59.999999Z"),
                        Instant.parse("1899-03-04T05:06:07.080901Z"), Instant.parse("2000-01-01T00:00:00.000001Z"),
                        Instant.parse("4713-01-01T00:00:00Z"), Instant.parse("-0043-03-15T12:00:00Z"));
                assertThat(read.subList(9, 11)).containsExactly(OffsetDateTime.MAX.toInstant(),
                        OffsetDateTime.MIN.toInstant());
                assertThat(dialect.getInstant(row, VALUES.size() + 1)).isNull();
                List<Instant> zoneless = new ArrayList<>();
                List<Instant> zonelessByPgjdbc = new ArrayList<>();
                for (int column = VALUES.size() + 2; column <= VALUES.size() + 1 + ZONELESS.size(); column++) {
                    zoneless.add(dialect.getInstant(row, column));
                    zonelessByPgjdbc.add(row.getObject(column, OffsetDateTime.class).toInstant());
                }
                assertThat(zoneless).containsExactlyElementsOf(zonelessByPgjdbc).containsExactly(
                        Instant.parse("2026-11-27T13:29:02.170602Z"), Instant.parse("1969-12-31T23:59:59.999999Z"),
                        Instant.parse("-0043-03-15T12:00:00Z"), OffsetDateTime.MAX.toInstant(),
                        OffsetDateTime.MIN.toInstant());
            }
        }
    }

    /** As above, for uuids. */
    @ParameterizedTest
    @ValueSource(ints = {-1, 0})
    void everyUuidReadsAsPgjdbcReadsIt(int prepareThreshold) throws SQLException {
        Dialect dialect = postgresDialect();
        String url = PostgresTestDatabase.server();
        StringBuilder select = new StringBuilder("SELECT ");
        UUIDS.forEach(value -> select.append("CAST(? AS uuid), "));
        select.append("CAST(NULL AS uuid)");
        try (Connection connection = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "prepareThreshold=" + prepareThreshold);
                PreparedStatement statement = connection.prepareStatement(select.toString())) {
            for (int i = 0; i < UUIDS.size(); i++) {
                statement.setString(i + 1, UUIDS.get(i));
            }
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getMetaData().unwrap(PGResultSetMetaData.class).getFormat(1))
                        .as("the wire format this run reads").isEqualTo(prepareThreshold < 0 ? 1 : 0);
                AtomicInteger getObjectCalls = new AtomicInteger();
                ResultSet watched = LostAnswers.proxy(ResultSet.class, row, (method, args, result) -> {
                    if (method.getName().equals("getObject")) {
                        getObjectCalls.incrementAndGet();
                    }
                    return result;
                });
                List<UUID> read = new ArrayList<>();
                List<UUID> pgjdbc = new ArrayList<>();
                for (int column = 1; column <= UUIDS.size(); column++) {
                    read.add(dialect.getUuid(watched, column));
                    pgjdbc.add(row.getObject(column, UUID.class));
                }
                assertThat(read).containsExactlyElementsOf(pgjdbc)
                        .containsExactlyElementsOf(UUIDS.stream().map(UUID::fromString).toList());
                assertThat(dialect.getUuid(watched, UUIDS.size() + 1)).isNull();
                if (prepareThreshold < 0) {
                    assertThat(getObjectCalls).as("pgjdbc's getObject calls").hasValue(0);
                }
            }
        }
    }

    /**
     * The dialect finds a column's wire format once per result set and thread (issue #12): one
     * thread reads the same statement's results as text, then in binary once pgjdbc prepared it, each
     * beside another result set read while the first is open; every value reads right.
     */
    @Test
    void eachResultSetIsReadInItsOwnFormat() throws SQLException {
        Dialect dialect = postgresDialect();
        String url = PostgresTestDatabase.server();
        UUID id = UUID.fromString(UUIDS.get(4));
        List<Integer> formats = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "prepareThreshold=3");
                PreparedStatement uuids = connection.prepareStatement("SELECT CAST(? AS uuid), CAST(? AS timestamptz)");
                PreparedStatement other = connection.prepareStatement("SELECT CAST(? AS timestamptz), CAST(? AS uuid)")) {
            for (int run = 0; run < 6; run++) {
                uuids.setString(1, id.toString());
                uuids.setString(2, VALUES.get(0));
                other.setString(1, VALUES.get(3));
                other.setString(2, UUIDS.get(2));
                try (ResultSet row = uuids.executeQuery(); ResultSet otherRow = other.executeQuery()) {
                    assertThat(row.next()).isTrue();
                    assertThat(otherRow.next()).isTrue();
                    formats.add(row.getMetaData().unwrap(PGResultSetMetaData.class).getFormat(1));
                    assertThat(dialect.getUuid(row, 1)).as("run %d", run).isEqualTo(id);
                    assertThat(dialect.getInstant(otherRow, 1)).as("run %d", run)
                            .isEqualTo(Instant.parse("1970-01-01T00:00:00.000001Z"));
                    assertThat(dialect.getInstant(row, 2)).as("run %d", run)
                            .isEqualTo(Instant.parse("2026-11-27T13:29:02.170602Z"));
                    assertThat(dialect.getUuid(otherRow, 2)).as("run %d", run).isEqualTo(UUID.fromString(UUIDS.get(2)));
                }
            }
        }
        assertThat(formats).as("the wire format of each run").contains(0, 1);
    }

    /**
     * The dialect binds an instant as pgjdbc binds its {@code OffsetDateTime} (its own text where it
     * can, pgjdbc's elsewhere): the same {@code timestamptz}, rounded to the microsecond alike
     * (into the next second, day and year), before 1970, in the first and the last four-digit year,
     * past them and before the common era, in either wire format of the result.
     */
    @ParameterizedTest
    @ValueSource(ints = {-1, 0})
    void everyInstantBindsAsPgjdbcBindsIt(int prepareThreshold) throws SQLException {
        Dialect dialect = postgresDialect();
        List<Instant> instants = List.of(Instant.parse("2026-11-28T15:04:05.123456Z"),
                Instant.parse("2026-11-28T15:04:05.1234565Z"), Instant.parse("2026-11-28T15:04:05.123456499Z"),
                Instant.parse("2026-12-31T23:59:59.9999995Z"), Instant.parse("1969-12-31T23:59:59.999999Z"),
                Instant.parse("1969-12-31T23:59:59.9999994Z"), Instant.parse("1970-01-01T00:00:00Z"),
                Instant.parse("0001-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59.999999Z"),
                Instant.parse("9999-12-31T23:59:59.9999995Z"), Instant.parse("+12345-06-07T08:09:10.5Z"),
                Instant.parse("-0043-03-15T12:00:00Z"), Instant.parse("0000-12-31T23:59:59.9999995Z"));
        String url = PostgresTestDatabase.server();
        try (Connection connection = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "prepareThreshold=" + prepareThreshold);
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT CAST(? AS timestamptz) = CAST(? AS timestamptz), CAST(? AS timestamptz)")) {
            for (Instant instant : instants) {
                dialect.setInstant(statement, 1, instant);
                statement.setObject(2, instant.atOffset(java.time.ZoneOffset.UTC));
                dialect.setInstant(statement, 3, instant);
                try (ResultSet row = statement.executeQuery()) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getBoolean(1)).as("%s bound as pgjdbc binds it", instant).isTrue();
                    assertThat(dialect.getInstant(row, 2)).as("%s read back", instant)
                            .isEqualTo(Instant.ofEpochSecond(instant.getEpochSecond(),
                                    (instant.getNano() + 500) / 1000 * 1000L));
                }
            }
            dialect.setInstant(statement, 1, null);
            dialect.setInstant(statement, 2, null);
            dialect.setInstant(statement, 3, null);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getObject(1)).isNull();
                assertThat(dialect.getInstant(row, 2)).isNull();
            }
        }
    }

    /** Binding an instant asks the database nothing (no type lookup): here any statement would fail. */
    @Test
    void bindingAnInstantAsksTheDatabaseNothing() throws SQLException {
        Dialect dialect = postgresDialect();
        try (Connection connection = DriverManager.getConnection(PostgresTestDatabase.server())) {
            connection.setAutoCommit(false);
            PostgresTestDatabase.abort(connection); // from here every statement on this connection fails
            try (PreparedStatement statement = connection.prepareStatement("SELECT CAST(? AS timestamptz)")) {
                dialect.setInstant(statement, 1, Instant.parse("2026-11-28T15:04:05.123456Z"));
            } finally {
                connection.rollback();
            }
        }
    }

    /**
     * pgjdbc's {@code getColumnTypeName} of a table's column runs a catalog query (once per connection
     * and table): a cold connection's first claims paid for it. Here the transaction is aborted after
     * the rows arrived, so any statement the read sent would fail it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"timestamptz", "uuid"})
    void readingATableColumnAsksTheDatabaseNothing(String type) throws SQLException {
        Dialect dialect = postgresDialect();
        String url = PostgresTestDatabase.server();
        boolean timestamp = type.equals("timestamptz");
        String value = timestamp ? "2026-11-27 13:29:02.170602+00" : "019ad1c3-6f2e-7c41-9a3b-5d2e8f10c4a7";
        try (Connection connection = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?")
                + "prepareThreshold=-1")) {
            connection.setAutoCommit(false);
            try (Statement setup = connection.createStatement()) {
                setup.execute("CREATE TEMPORARY TABLE kept (value " + type + ") ON COMMIT DROP");
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO kept VALUES (CAST(? AS " + type + "))")) {
                insert.setString(1, value);
                insert.executeUpdate();
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT value FROM kept");
                    ResultSet row = select.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getMetaData().unwrap(PGResultSetMetaData.class).getFormat(1)).isEqualTo(1);
                PostgresTestDatabase.abort(connection); // from here every statement on this connection fails
                Object read = timestamp ? dialect.getInstant(row, 1) : dialect.getUuid(row, 1);
                assertThat(read).isEqualTo(timestamp ? Instant.parse("2026-11-27T13:29:02.170602Z") : UUID.fromString(value));
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
