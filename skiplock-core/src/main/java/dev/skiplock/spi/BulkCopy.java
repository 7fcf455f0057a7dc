package dev.skiplock.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A way to write many rows that is cheaper for the database than an {@code INSERT} of the same rows
 * (PostgreSQL: {@code COPY … FROM STDIN}). Used for large enqueue batches when the driver offers it.
 */
public interface BulkCopy {
    /** False if this connection cannot copy (e.g. a pool whose connections do not unwrap to the driver's). */
    boolean canCopy(Connection connection) throws SQLException;

    /**
     * Streams {@code rows} into the table of {@code copyStatement} on the connection, in its current
     * transaction. Each row holds one value per column of the statement, in its order: {@code null},
     * {@link String}, {@link Number}, {@link java.util.UUID}, {@link java.time.Instant}, or anything
     * whose {@code toString()} is the column's text form (e.g. a JSON tree). Returns the rows written.
     */
    long copy(Connection connection, String copyStatement, List<Object[]> rows) throws SQLException;
}
