package dev.skiplock.postgres;

import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * PostgreSQL's binary {@code timestamptz} (and {@code timestamp}, the same bytes for a wall time,
 * which pgjdbc reads at UTC): a big-endian signed count of microseconds since
 * 2000-01-01 00:00 UTC, with the largest and smallest values standing for {@code infinity} and
 * {@code -infinity}. Those two decode as pgjdbc decodes them ({@link OffsetDateTime#MAX},
 * {@link OffsetDateTime#MIN}), so a value reads the same in either wire format.
 */
final class BinaryTimestamps {
    /** 2000-01-01T00:00:00Z in seconds since the Unix epoch. */
    private static final long POSTGRES_EPOCH_SECOND = 946_684_800L;
    private static final long MICROS_PER_SECOND = 1_000_000L;
    static final int BYTES = Long.BYTES;

    private BinaryTimestamps() {
    }

    /** {@code value}: the {@value #BYTES} bytes of one binary {@code timestamptz} or {@code timestamp}. */
    static Instant decode(byte[] value) {
        long micros = 0;
        for (int i = 0; i < BYTES; i++) {
            micros = micros << 8 | (value[i] & 0xff);
        }
        if (micros == Long.MAX_VALUE) {
            return OffsetDateTime.MAX.toInstant();
        }
        if (micros == Long.MIN_VALUE) {
            return OffsetDateTime.MIN.toInstant();
        }
        return Instant.ofEpochSecond(POSTGRES_EPOCH_SECOND + Math.floorDiv(micros, MICROS_PER_SECOND),
                Math.floorMod(micros, MICROS_PER_SECOND) * 1_000L);
    }
}
