package dev.skiplock.postgres;

import java.lang.ref.WeakReference;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Arrays;
import org.postgresql.PGResultSetMetaData;

/**
 * The JDBC type of each column of a result set that came in binary, or {@link #NOT_BINARY}, found
 * once per result set and column on each thread. A binary {@code timestamptz} and {@code timestamp}
 * are the same eight bytes, and pgjdbc reads a {@code timestamp} as an instant at UTC too; pgjdbc
 * 42.7 reports both as {@code TIMESTAMP} ({@code TIMESTAMP_WITH_TIMEZONE} in case a later one does
 * not), and a {@code uuid} as {@code OTHER} (so do other types; the dialect asks of the columns it
 * reads as uuids only). Asked by JDBC type, never by type name: pgjdbc's {@code getColumnTypeName}
 * looks a table column up in the catalog (a query per connection and table, which the first claims
 * on every new connection paid for).
 *
 * <p>Kept per thread for the result set it read last (a claimer, the completer and a handler each
 * read their own): asked of pgjdbc at every value, the answer cost a synchronized lookup and a boxed
 * {@code Integer} each time, seven times a claimed job (issue #12: about 3 % of a drain's
 * allocations, on the claim's thread). pgjdbc makes one metadata object per result set, and HikariCP
 * passes it on as it is. It is held weakly: it holds its connection, which a thread that reads
 * nothing more would otherwise keep after the pool retired it (helper-120).
 */
final class BinaryColumns {
    /** The column came as text, or through a driver or pool that does not expose pgjdbc's metadata. */
    static final int NOT_BINARY = Integer.MIN_VALUE;
    /** {@link PGResultSetMetaData#getFormat}: the column came in the binary wire format. */
    private static final int BINARY_FORMAT = 1;
    /** Not asked yet: no JDBC type has this value. */
    private static final int UNKNOWN = Integer.MIN_VALUE + 1;
    private static final ThreadLocal<BinaryColumns> LAST_READ = new ThreadLocal<>();

    private final WeakReference<ResultSetMetaData> readFrom;
    /** By column (1-based, as JDBC counts): its binary type, {@link #NOT_BINARY} or {@link #UNKNOWN}. */
    private int[] types = new int[0];

    private BinaryColumns(ResultSetMetaData metadata) {
        this.readFrom = new WeakReference<>(metadata);
    }

    /** The JDBC type of {@code row}'s {@code column} if it came in binary, else {@link #NOT_BINARY}. */
    static int typeOf(ResultSet row, int column) throws SQLException {
        if (column < 1) {
            throw new SQLException("column index " + column + " is out of range: the first column is 1");
        }
        ResultSetMetaData metadata = row.getMetaData(); // pgjdbc keeps one per result set
        BinaryColumns columns = LAST_READ.get();
        if (columns == null || columns.readFrom.get() != metadata) {
            columns = new BinaryColumns(metadata);
            LAST_READ.set(columns);
        }
        return columns.type(metadata, column);
    }

    private int type(ResultSetMetaData metadata, int column) throws SQLException {
        if (column >= types.length) {
            int known = types.length;
            types = Arrays.copyOf(types, column + 1);
            Arrays.fill(types, known, types.length, UNKNOWN);
        }
        if (types[column] == UNKNOWN) {
            types[column] = !metadata.isWrapperFor(PGResultSetMetaData.class)
                    || metadata.unwrap(PGResultSetMetaData.class).getFormat(column) != BINARY_FORMAT ? NOT_BINARY
                    : metadata.getColumnType(column);
        }
        return types[column];
    }
}
