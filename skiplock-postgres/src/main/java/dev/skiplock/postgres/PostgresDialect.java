package dev.skiplock.postgres;

import dev.skiplock.spi.Dialect;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.postgresql.util.PGobject;

/** Native {@code uuid} and {@code timestamptz} columns (binary timestamps: {@link BinaryTimestamps}; binary uuids: {@link #getUuid}). */
final class PostgresDialect implements Dialect {
    private static final String UNIQUE_VIOLATION = "23505";
    /** A binary {@code uuid}: its sixteen bytes, most significant first. */
    private static final int UUID_BYTES = 16;

    @Override
    public void setUuid(PreparedStatement statement, int index, UUID value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.OTHER);
        } else {
            statement.setObject(index, value);
        }
    }

    /** pgjdbc encodes an array of each element type the statements name; PostgreSQL reads it without parsing JSON. */
    @Override
    public boolean takesArrays() {
        return true;
    }

    /**
     * A {@code uuid} array is written as its text by {@link UuidArrayParameter}: pgjdbc has no binary
     * form for it, and builds its text from each element's {@code toString()}, quoted, in a buffer
     * it grows. Other arrays as pgjdbc encodes them (a {@code String[]}, {@code Long[]} or
     * {@code Integer[]} in binary).
     */
    @Override
    public void setArray(PreparedStatement statement, int index, String elementType, Object[] elements)
            throws SQLException {
        if (elements instanceof UUID[] ids && "uuid".equals(elementType)) {
            statement.setObject(index, UuidArrayParameter.of(ids));
        } else {
            Dialect.super.setArray(statement, index, elementType, elements);
        }
    }

    /** {@code pg_notify} in a statement reaches every listening connection when it commits. */
    @Override
    public boolean statementsNotify() {
        return true;
    }

    /**
     * pgjdbc names (server-prepares) a statement after five uses, and PostgreSQL may then keep one
     * generic plan for any values: for the job list's optional filters that plan walked the whole
     * history (10 million jobs: 1 to 3 s per page). Threshold 0 keeps the statement unnamed, which
     * PostgreSQL plans with each call's values.
     */
    @Override
    public void planPerCall(PreparedStatement statement) throws SQLException {
        statement.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
    }

    /**
     * {@code SET LOCAL}: a connection borrowed from an application's pool goes back with its own
     * setting. Issue #12: the reaper's search for waiting jobs to settle ({@code find_settleable_jobs},
     * then part of {@code settle_waiting_jobs}), planned past {@code jit_above_cost} on a drained table
     * without fresh statistics, was JIT-compiled at every run: over four reaper runs (four worker
     * processes) 300 functions and 878 ms of JIT, for statements that read one index page each
     * ({@code pg_stat_statements}).
     */
    @Override
    public void disableJit(Connection transaction) throws SQLException {
        try (Statement statement = transaction.createStatement()) {
            statement.execute("SET LOCAL jit = off");
        }
    }

    /**
     * A {@code uuid} sent in binary (the claim's and the reads' rows, as for timestamps below) is
     * made from its sixteen bytes here. pgjdbc's {@code getObject(column, UUID.class)} does the same
     * in the end, through a method that tries each of its types in turn: per claimed job its ids
     * took that path, and the JIT compiled it (issue #12: that method's C2 compilation took 74 ms of
     * a 50,000-job drain's compiler time). A value sent as text is read as before.
     */
    @Override
    public UUID getUuid(ResultSet row, int column) throws SQLException {
        if (BinaryColumns.typeOf(row, column) == Types.OTHER) {
            byte[] value = row.getBytes(column);
            if (value == null) {
                return null;
            }
            if (value.length == UUID_BYTES) {
                ByteBuffer bytes = ByteBuffer.wrap(value); // big-endian, as the wire sends it
                return new UUID(bytes.getLong(0), bytes.getLong(Long.BYTES));
            }
        }
        return row.getObject(column, UUID.class);
    }

    /** Written by {@link TimestampParameter} where it can (cheaper than pgjdbc's way, the same text). */
    @Override
    public void setInstant(PreparedStatement statement, int index, Instant value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
            return;
        }
        PGobject parameter = TimestampParameter.of(value);
        if (parameter != null) {
            statement.setObject(index, parameter);
        } else {
            statement.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
        }
    }

    /**
     * A {@code timestamptz} (or {@code timestamp}) sent in binary (pgjdbc asks for it once a
     * statement is server-prepared: the claim's and the reads' rows) is decoded here from its eight
     * bytes; pgjdbc's own way goes through five java.time objects per value, about a twelfth of a
     * claimed job's allocation. A value sent as text, or by a driver or pool that does not expose
     * pgjdbc's metadata, is read with {@code getObject} as before.
     */
    @Override
    public Instant getInstant(ResultSet row, int column) throws SQLException {
        int type = BinaryColumns.typeOf(row, column);
        if (type == Types.TIMESTAMP || type == Types.TIMESTAMP_WITH_TIMEZONE) {
            byte[] value = row.getBytes(column);
            if (value == null) {
                return null;
            }
            if (value.length == BinaryTimestamps.BYTES) {
                return BinaryTimestamps.decode(value);
            }
        }
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    @Override
    public boolean isUniqueViolation(SQLException exception) {
        return UNIQUE_VIOLATION.equals(exception.getSQLState());
    }

    /** Class 22 (data exception: bad encoding, NUL in text or jsonb, value out of range), 54 (too large). */
    @Override
    public boolean isDataError(SQLException exception) {
        String state = exception.getSQLState();
        return state != null && (state.startsWith("22") || state.startsWith("54"));
    }
}
