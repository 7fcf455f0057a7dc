package dev.skiplock.postgres;

import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.postgresql.util.PGobject;

/**
 * A {@code timestamptz} parameter written as PostgreSQL's text, at UTC, to the microsecond (a
 * half microsecond and more rounds up, as pgjdbc rounds). pgjdbc's own way, {@code setObject} of
 * an {@code OffsetDateTime}, builds a {@code TimestampUtils} for every statement that binds one
 * and formats through it: 7 % of a cold claimer's time (issue #12: the claim binds its floor's two
 * times). A value pgjdbc sends the same way and PostgreSQL reads the same: {@code of} only takes
 * the years 1 to 9999 (four digits, common era); the rest (the infinities, before the common era)
 * stay pgjdbc's.
 */
final class TimestampParameter {
    private static final int FIRST_YEAR = 1;
    private static final int LAST_YEAR = 9999;
    private static final long NANOS_PER_MICRO = 1_000L;

    private TimestampParameter() {
    }

    /** {@code value} as a {@code timestamptz} parameter, or null where pgjdbc must write it. */
    static PGobject of(Instant value) throws SQLException {
        long micros = Math.floorDiv(value.getNano() + NANOS_PER_MICRO / 2, NANOS_PER_MICRO);
        LocalDateTime time = LocalDateTime.ofEpochSecond(value.getEpochSecond(), 0, ZoneOffset.UTC)
                .plusNanos(micros * NANOS_PER_MICRO);
        if (time.getYear() < FIRST_YEAR || time.getYear() > LAST_YEAR) {
            return null;
        }
        StringBuilder text = new StringBuilder(32);
        digits(text, time.getYear(), 4).append('-');
        digits(text, time.getMonthValue(), 2).append('-');
        digits(text, time.getDayOfMonth(), 2).append(' ');
        digits(text, time.getHour(), 2).append(':');
        digits(text, time.getMinute(), 2).append(':');
        digits(text, time.getSecond(), 2).append('.');
        digits(text, time.getNano() / (int) NANOS_PER_MICRO, 6).append("+00");
        PGobject parameter = new PGobject();
        parameter.setType("timestamptz");
        parameter.setValue(text.toString());
        return parameter;
    }

    private static StringBuilder digits(StringBuilder text, int value, int width) {
        String number = Integer.toString(value);
        for (int i = number.length(); i < width; i++) {
            text.append('0');
        }
        return text.append(number);
    }
}
