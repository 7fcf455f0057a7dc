package dev.skiplock.postgres;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Follows the server-to-client byte stream of one connection (PostgreSQL protocol 3: a type byte,
 * a length, a body) and passes on the payload of every NotificationResponse ('A') once its last
 * byte arrived. Before the first message the server may answer SSL and GSS encryption requests
 * with one byte: 'N' (refused) is skipped; 'S' or 'G' means an encrypted stream, which cannot be
 * read along, so the scanner turns itself off and notifications arrive through pgjdbc instead.
 */
final class NotificationScanner {
    private static final int MAX_NOTIFICATION_BYTES = 1 << 20;

    private enum State { NEGOTIATING, HEADER, BODY, OFF }

    private final Consumer<String> payloads;
    private State state = State.NEGOTIATING;
    private final byte[] header = new byte[5];
    private int headerLength;
    private int bodyLeft;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    NotificationScanner(Consumer<String> payloads) {
        this.payloads = payloads;
    }

    /** True while notifications are delivered from here (a plain, readable stream). */
    boolean active() {
        return state != State.OFF && state != State.NEGOTIATING;
    }

    void accept(byte[] bytes, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end && state != State.OFF) {
            switch (state) {
                case NEGOTIATING -> {
                    byte b = bytes[i];
                    if (b == 'N') {
                        i++; // an SSL or GSS request refused: the plain stream follows
                    } else if (b == 'S' || b == 'G') {
                        state = State.OFF;
                    } else {
                        state = State.HEADER;
                    }
                }
                case HEADER -> {
                    header[headerLength++] = bytes[i++];
                    if (headerLength == header.length) {
                        headerLength = 0;
                        int frameLength = ((header[1] & 0xff) << 24) | ((header[2] & 0xff) << 16)
                                | ((header[3] & 0xff) << 8) | (header[4] & 0xff);
                        bodyLeft = frameLength - 4;
                        if (bodyLeft < 0 || (header[0] == 'A' && bodyLeft > MAX_NOTIFICATION_BYTES)) {
                            state = State.OFF; // not the stream we understand: leave it to pgjdbc
                        } else if (bodyLeft == 0) {
                            finishFrame();
                        } else {
                            state = State.BODY;
                        }
                    }
                }
                case BODY -> {
                    int take = Math.min(bodyLeft, end - i);
                    if (header[0] == 'A') {
                        body.write(bytes, i, take);
                    }
                    i += take;
                    bodyLeft -= take;
                    if (bodyLeft == 0) {
                        finishFrame();
                    }
                }
                case OFF -> {
                    return;
                }
            }
        }
    }

    private void finishFrame() {
        state = State.HEADER;
        if (header[0] != 'A') {
            return;
        }
        byte[] frame = body.toByteArray();
        body.reset();
        // Body: int32 sender pid, channel name (NUL-terminated), payload (NUL-terminated).
        int channelEnd = indexOfNul(frame, 4);
        int payloadEnd = channelEnd < 0 ? -1 : indexOfNul(frame, channelEnd + 1);
        if (payloadEnd < 0) {
            return;
        }
        payloads.accept(new String(frame, channelEnd + 1, payloadEnd - channelEnd - 1, StandardCharsets.UTF_8));
    }

    private static int indexOfNul(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }
}
