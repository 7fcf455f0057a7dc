package dev.skiplock.postgres;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.UUID;
import org.postgresql.util.PGobject;

/**
 * A {@code uuid[]} parameter written as PostgreSQL's text, {@code {id,id,NULL}}, straight from each
 * id's bits into one buffer of its final size. pgjdbc's {@code createArrayOf} makes each id's
 * {@code toString()}, quotes it into a buffer it grows, and copies the result: issue #12, with the
 * completion's other arrays a ninth of a drain's allocations. PostgreSQL reads the same text.
 */
final class UuidArrayParameter {
    /** {@code 8-4-4-4-12} hex digits. */
    private static final int UUID_CHARS = 36;
    private static final byte[] NULL = {'N', 'U', 'L', 'L'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private UuidArrayParameter() {
    }

    static PGobject of(UUID[] ids) throws SQLException {
        int length = 2 + Math.max(0, ids.length - 1); // the braces and the commas
        for (UUID id : ids) {
            length += id == null ? NULL.length : UUID_CHARS;
        }
        byte[] text = new byte[length];
        int at = 0;
        text[at++] = '{';
        for (int i = 0; i < ids.length; i++) {
            if (i > 0) {
                text[at++] = ',';
            }
            at = ids[i] == null ? put(text, at, NULL) : put(text, at, ids[i]);
        }
        text[at] = '}';
        PGobject parameter = new PGobject();
        parameter.setType("uuid[]");
        parameter.setValue(new String(text, StandardCharsets.US_ASCII));
        return parameter;
    }

    private static int put(byte[] text, int at, byte[] word) {
        System.arraycopy(word, 0, text, at, word.length);
        return at + word.length;
    }

    /** The id's 32 hex digits with dashes after the 8th, 12th, 16th and 20th, as {@link UUID#toString}. */
    private static int put(byte[] text, int at, UUID id) {
        at = hex(text, at, id.getMostSignificantBits() >>> 32, 8);
        text[at++] = '-';
        at = hex(text, at, id.getMostSignificantBits() >>> 16, 4);
        text[at++] = '-';
        at = hex(text, at, id.getMostSignificantBits(), 4);
        text[at++] = '-';
        at = hex(text, at, id.getLeastSignificantBits() >>> 48, 4);
        text[at++] = '-';
        return hex(text, at, id.getLeastSignificantBits(), 12);
    }

    /** The low {@code digits} hex digits of {@code bits}, most significant first. */
    private static int hex(byte[] text, int at, long bits, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            text[at + i] = HEX[(int) (bits & 0xF)];
            bits >>>= 4;
        }
        return at + digits;
    }
}
