package dev.skiplock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The byte-level reader of the LISTEN connection: protocol frames built here by hand. */
class NotificationScannerTest {
    private final List<String> payloads = new ArrayList<>();
    private final NotificationScanner scanner = new NotificationScanner(payloads::add);

    @Test
    void passesOnEachNotificationPayloadAndSkipsOtherMessages() {
        byte[] stream = concat(frame('R', new byte[4]), frame('Z', new byte[] {'I'}),
                notification("skiplock:public", "q:default"), frame('C', "LISTEN\0".getBytes(StandardCharsets.UTF_8)),
                notification("skiplock:public", "e:0190a4c2-0000-7000-8000-000000000001"));

        scanner.accept(stream, 0, stream.length);

        assertThat(payloads).containsExactly("q:default", "e:0190a4c2-0000-7000-8000-000000000001");
        assertThat(scanner.active()).isTrue();
    }

    @Test
    void aNotificationSplitAcrossReadsIsPassedOnOnceItsLastByteArrives() {
        byte[] stream = concat(frame('R', new byte[4]), notification("skiplock:public", "c:job"));
        for (int i = 0; i < stream.length; i++) {
            scanner.accept(stream, i, 1);
            if (i < stream.length - 1) {
                assertThat(payloads).isEmpty();
            }
        }
        assertThat(payloads).containsExactly("c:job");
    }

    @Test
    void refusedEncryptionRequestsAreSkippedBeforeTheFirstMessage() {
        byte[] stream = concat(new byte[] {'N', 'N'}, frame('R', new byte[4]), notification("ch", "q:a"));

        scanner.accept(stream, 0, stream.length);

        assertThat(payloads).containsExactly("q:a");
    }

    @Test
    void anEncryptedStreamTurnsTheScannerOff() {
        byte[] stream = concat(new byte[] {'S'}, notification("ch", "q:a"));

        scanner.accept(stream, 0, stream.length);

        assertThat(payloads).isEmpty();
        assertThat(scanner.active()).isFalse();
    }

    private static byte[] notification(String channel, String payload) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(ByteBuffer.allocate(4).putInt(4242).array());
        body.writeBytes(channel.getBytes(StandardCharsets.UTF_8));
        body.write(0);
        body.writeBytes(payload.getBytes(StandardCharsets.UTF_8));
        body.write(0);
        return frame('A', body.toByteArray());
    }

    private static byte[] frame(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            all.writeBytes(part);
        }
        return all.toByteArray();
    }
}
