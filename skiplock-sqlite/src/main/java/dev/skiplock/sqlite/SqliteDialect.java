package dev.skiplock.sqlite;

import dev.skiplock.spi.Dialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.UUID;

/** UUIDs as TEXT (UUIDv7 text sorts in time order), instants as INTEGER Unix milliseconds. */
final class SqliteDialect implements Dialect {
    @Override
    public void setUuid(PreparedStatement statement, int index, UUID value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.VARCHAR);
        } else {
            statement.setString(index, value.toString());
        }
    }

    @Override
    public UUID getUuid(ResultSet row, int column) throws SQLException {
        String value = row.getString(column);
        return value == null ? null : UUID.fromString(value);
    }

    @Override
    public void setInstant(PreparedStatement statement, int index, Instant value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.BIGINT);
        } else {
            statement.setLong(index, value.toEpochMilli());
        }
    }

    @Override
    public Instant getInstant(ResultSet row, int column) throws SQLException {
        long value = row.getLong(column);
        return row.wasNull() ? null : Instant.ofEpochMilli(value);
    }

    @Override
    public boolean isUniqueViolation(SQLException exception) {
        return exception.getErrorCode() == 19 && String.valueOf(exception.getMessage()).contains("UNIQUE");
    }

    /** SQLITE_TOOBIG (18), SQLITE_MISMATCH (20), or a JSON value SQLite cannot parse. */
    @Override
    public boolean isDataError(SQLException exception) {
        int code = exception.getErrorCode();
        return code == 18 || code == 20 || String.valueOf(exception.getMessage()).contains("malformed JSON");
    }

    /** One writer at a time per database file ({@code BEGIN IMMEDIATE} takes the write lock). */
    @Override
    public boolean writesOneAtATime() {
        return true;
    }

    /** Row triggers cost most of a claim's and a success's write here, so the hot path fires none (migration 0017). */
    @Override
    public boolean hotPathBookkeptByStore() {
        return true;
    }
}
