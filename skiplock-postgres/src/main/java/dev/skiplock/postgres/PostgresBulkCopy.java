package dev.skiplock.postgres;

import dev.skiplock.spi.BulkCopy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/** {@code COPY … FROM STDIN} in PostgreSQL's text format, one buffer per call. */
final class PostgresBulkCopy implements BulkCopy {

    @Override
    public boolean canCopy(Connection connection) throws SQLException {
        return connection.isWrapperFor(PGConnection.class);
    }

    @Override
    public long copy(Connection connection, String copyStatement, List<Object[]> rows) throws SQLException {
        byte[] data = encode(rows).getBytes(StandardCharsets.UTF_8);
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(copyStatement);
        try {
            copy.writeToCopy(data, 0, data.length);
            return copy.endCopy();
        } catch (SQLException | RuntimeException e) {
            if (copy.isActive()) {
                try {
                    copy.cancelCopy();
                } catch (SQLException cancelFailure) {
                    e.addSuppressed(cancelFailure); // the copy's own failure is the one to report
                }
            }
            throw e;
        }
    }

    /** Rows as COPY text: tab-separated columns, one line per row, {@code \N} for NULL. */
    static String encode(List<Object[]> rows) {
        StringBuilder text = new StringBuilder(rows.size() * 160);
        Map<Object, String> repeated = new HashMap<>(); // rows of a batch share most instants: format each once
        for (Object[] row : rows) {
            for (int column = 0; column < row.length; column++) {
                if (column > 0) {
                    text.append('\t');
                }
                appendValue(text, row[column], repeated);
            }
            text.append('\n');
        }
        return text.toString();
    }

    private static void appendValue(StringBuilder text, Object value, Map<Object, String> repeated) {
        if (value == null) {
            text.append("\\N");
            return;
        }
        // Instant.toString() is ISO-8601 in UTC, which timestamptz reads.
        String plain = value instanceof Instant instant ? repeated.computeIfAbsent(instant, Object::toString)
                : value.toString();
        for (int i = 0; i < plain.length(); i++) {
            char character = plain.charAt(i);
            switch (character) {
                case '\\' -> text.append("\\\\");
                case '\t' -> text.append("\\t");
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                default -> text.append(character);
            }
        }
    }
}
