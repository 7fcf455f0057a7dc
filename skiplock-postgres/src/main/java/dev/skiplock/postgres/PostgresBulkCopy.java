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

/**
 * {@code COPY … FROM STDIN} in PostgreSQL's text format. The rows go out in chunks as they are
 * encoded, so the server parses and inserts the first ones while the rest are still being encoded
 * (two cores at work instead of one after the other). A failure cancels the copy if it is still
 * open and is thrown as it came (the server's own error ends the copy at {@code endCopy}); the
 * caller's transaction is then aborted.
 */
final class PostgresBulkCopy implements BulkCopy {
    /**
     * A chunk is sent once it holds at least this many characters (whole rows, so a little more):
     * a batch of 1,000 plain jobs, about 170 characters a row, goes out in six.
     */
    static final int CHUNK_CHARS = 32 * 1024;

    /** Takes the encoded text, chunk by chunk, in order. */
    @FunctionalInterface
    interface ChunkSink {
        /** {@code chunk} is reused once this returns: copy it to keep it. */
        void accept(CharSequence chunk) throws SQLException;
    }

    @Override
    public boolean canCopy(Connection connection) throws SQLException {
        return connection.isWrapperFor(PGConnection.class);
    }

    @Override
    public long copy(Connection connection, String copyStatement, List<Object[]> rows) throws SQLException {
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(copyStatement);
        try {
            encode(rows, CHUNK_CHARS, chunk -> {
                byte[] data = chunk.toString().getBytes(StandardCharsets.UTF_8);
                copy.writeToCopy(data, 0, data.length);
            });
            return copy.endCopy();
        } catch (SQLException | RuntimeException | Error e) {
            // Also an Error (a large batch's OutOfMemoryError while encoding): a copy left open
            // holds pgjdbc's connection lock, and the rollback that follows would wait on it forever.
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

    /** Rows as COPY text, whole: tab-separated columns, one line per row, {@code \N} for NULL. */
    static String encode(List<Object[]> rows) {
        StringBuilder whole = new StringBuilder();
        try {
            encode(rows, CHUNK_CHARS, whole::append);
        } catch (SQLException e) {
            throw new IllegalStateException(e); // appending to a StringBuilder throws none
        }
        return whole.toString();
    }

    /**
     * Rows as COPY text, handed to {@code sink} in chunks of whole rows once a chunk holds at least
     * {@code chunkChars} characters, then the rest. The chunks together are the text of {@link #encode(List)}.
     */
    static void encode(List<Object[]> rows, int chunkChars, ChunkSink sink) throws SQLException {
        StringBuilder text = new StringBuilder(chunkChars + 1024);
        Map<Object, String> repeated = new HashMap<>(); // rows of a batch share most instants: format each once
        for (Object[] row : rows) {
            for (int column = 0; column < row.length; column++) {
                if (column > 0) {
                    text.append('\t');
                }
                appendValue(text, row[column], repeated);
            }
            text.append('\n');
            if (text.length() >= chunkChars) {
                sink.accept(text);
                text.setLength(0);
            }
        }
        if (!text.isEmpty()) {
            sink.accept(text);
        }
    }

    private static void appendValue(StringBuilder text, Object value, Map<Object, String> repeated) {
        if (value == null) {
            text.append("\\N");
            return;
        }
        // Instant.toString() is ISO-8601 in UTC, which timestamptz reads.
        String plain = value instanceof Instant instant ? repeated.computeIfAbsent(instant, Object::toString)
                : value.toString();
        int clean = 0;
        while (clean < plain.length() && !needsEscape(plain.charAt(clean))) {
            clean++;
        }
        text.append(plain, 0, clean); // nearly every value: all of it, in one copy
        for (int i = clean; i < plain.length(); i++) {
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

    private static boolean needsEscape(char character) {
        return character == '\\' || character == '\t' || character == '\n' || character == '\r';
    }
}
