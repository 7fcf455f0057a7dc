package dev.skiplock.cli.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A follow over a connection that goes silent, is cut, or whose server goes away: a scripted
 * server on a loopback socket, which answers each connection as the test says and honours
 * Last-Event-ID. Before, {@code logs -f} and {@code submit --wait} read an NDJSON stream that sends
 * nothing while a job is quiet: a silent peer left them waiting for good, and a proxy's cut ended
 * them with exit 3 while the job ran on.
 */
class EventFollowerTest {
    private static final Duration IDLE = Duration.ofMillis(500);
    private static final String RUNNING = "{\"seq\":5,\"type\":\"status\",\"status\":\"running\",\"attempt\":1}";
    private static final String SUCCEEDED = "{\"seq\":7,\"type\":\"status\",\"status\":\"succeeded\",\"attempt\":1}";

    private final ScriptedServer server = new ScriptedServer();
    private final CountDownLatch testEnded = new CountDownLatch(1);
    private final CountDownLatch runningSeen = new CountDownLatch(1);

    @AfterEach
    void stop() throws IOException {
        testEnded.countDown();
        server.close();
    }

    @Test
    void aConnectionSilentForTheIdleTimeIsOpenedAgainAfterTheLastEvent() throws Exception {
        server.answer((lastEventId, out) -> {
            send(out, 5, RUNNING);
            testEnded.await(); // silent, the socket open: a peer gone without a word
        });
        server.answer((lastEventId, out) -> send(out, 7, SUCCEEDED));

        assertThat(follow()).containsExactly("running", "succeeded");
        assertThat(server.lastEventIds).containsExactly("", "5");
    }

    @Test
    void aCutConnectionIsOpenedAgainAfterTheLastEvent() throws Exception {
        server.answer((lastEventId, out) -> {
            send(out, 5, RUNNING);
            runningSeen.await(10, TimeUnit.SECONDS); // a reset may discard what the client has not read
            throw new CutConnection(); // reset, as a proxy's idle timeout or a restart does
        });
        server.answer((lastEventId, out) -> send(out, 7, SUCCEEDED));

        assertThat(follow()).containsExactly("running", "succeeded");
        assertThat(server.lastEventIds).containsExactly("", "5");
    }

    @Test
    void aStreamEndedBeforeTheTerminalStatusIsOpenedAgain() throws Exception {
        server.answer((lastEventId, out) -> send(out, 5, RUNNING)); // ends cleanly, the job not ended
        server.answer((lastEventId, out) -> send(out, 7, SUCCEEDED));

        assertThat(follow()).containsExactly("running", "succeeded");
        assertThat(server.lastEventIds).containsExactly("", "5");
    }

    /**
     * A resumed stream that ends at once, without an event, while the job runs (a proxy's clean
     * cut looks like the server's end past a finished job's last event): the job's status tells
     * them apart, and the follow goes on. Second reader: it ended the follow as if the job had ended.
     */
    @Test
    void aResumedStreamEndedWithoutAnEventWhileTheJobRunsIsOpenedAgain() throws Exception {
        server.answer((lastEventId, out) -> send(out, 5, RUNNING));
        server.answer((lastEventId, out) -> {
        }); // ends at once
        server.answer((lastEventId, out) -> send(out, 7, SUCCEEDED));

        assertThat(follow()).containsExactly("running", "succeeded");
        assertThat(server.lastEventIds).containsExactly("", "5", "5");
    }

    @Test
    void aStreamEndedWithoutItsTerminalStatusOfAJobThatEndedEndsTheFollow() throws Exception {
        server.answer((lastEventId, out) -> send(out, 5, RUNNING));
        server.jobStatus = "succeeded"; // it ended, and its last event was seen (resumed past it)

        assertThat(follow()).containsExactly("running");
        assertThat(server.lastEventIds).containsExactly("");
    }

    @Test
    void aServerThatCannotBeReachedAgainEndsTheFollowWithExitThree() throws Exception {
        server.answer((lastEventId, out) -> {
            send(out, 5, RUNNING);
            server.close(); // nobody listens any more
            testEnded.await();
        });

        List<String> seen = new CopyOnWriteArrayList<>();
        assertThatThrownBy(() -> new EventFollower(client(), IDLE).follow(JOB, event -> {
            seen.add(event.path("status").asText());
            return false;
        })).isInstanceOfSatisfying(CliFailure.class, failure -> assertThat(failure.exitCode()).isEqualTo(3));
        assertThat(seen).containsExactly("running");
    }

    @Test
    void connectionsThatBringNothingEndTheFollowWithExitThree() throws Exception {
        // each ends at once, cleanly: a reset could discard the response's headers, and an opening
        // that fails before any event was seen ends the follow at once, after fewer than five
        for (int i = 0; i < 5; i++) {
            server.answer((lastEventId, out) -> {
            });
        }

        assertThatThrownBy(() -> follow()).isInstanceOfSatisfying(CliFailure.class,
                failure -> assertThat(failure.exitCode()).isEqualTo(3));
        assertThat(server.lastEventIds).hasSize(5);
    }

    private static final String JOB = "0193a5c4-0000-7000-8000-000000000001";

    private ApiClient client() {
        return new ApiClient("http://127.0.0.1:" + server.port(), null);
    }

    private List<String> follow() {
        List<String> statuses = new ArrayList<>();
        new EventFollower(client(), IDLE).follow(JOB, event -> {
            statuses.add(event.path("status").asText());
            if (event.path("status").asText().equals("running")) {
                runningSeen.countDown();
            }
            return false;
        });
        return statuses;
    }

    private static void send(OutputStream out, long seq, String json) throws IOException {
        out.write(("id: " + seq + "\nevent: status\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** What one connection gets after the response's headers. */
    private interface Script {
        void answer(String lastEventId, OutputStream out) throws Exception;
    }

    private static final class CutConnection extends RuntimeException {
    }

    /** Answers each connection with the next script, in order; records each request's Last-Event-ID. */
    private static final class ScriptedServer implements AutoCloseable {
        private final ServerSocket socket;
        private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();
        final List<String> lastEventIds = new CopyOnWriteArrayList<>();
        /** The job's status, as GET /api/v1/jobs/{id} answers it. */
        volatile String jobStatus = "running";

        ScriptedServer() {
            try {
                socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            Thread.ofPlatform().daemon().start(this::accept);
        }

        void answer(Script script) {
            scripts.add(script);
        }

        int port() {
            return socket.getLocalPort();
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    Thread.ofPlatform().daemon().start(() -> serve(connection));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket connection) {
            try {
                BufferedReader request = new BufferedReader(new InputStreamReader(connection.getInputStream(),
                        StandardCharsets.ISO_8859_1));
                String requestLine = request.readLine();
                String lastEventId = "";
                for (String line = request.readLine(); line != null && !line.isEmpty(); line = request.readLine()) {
                    if (line.toLowerCase(java.util.Locale.ROOT).startsWith("last-event-id:")) {
                        lastEventId = line.substring("last-event-id:".length()).strip();
                    }
                }
                OutputStream out = connection.getOutputStream();
                if (requestLine != null && !requestLine.contains("/events/stream")) {
                    // the job itself, asked when a stream ended without its terminal status
                    byte[] job = ("{\"id\":\"" + JOB + "\",\"status\":\"" + jobStatus + "\"}").getBytes(StandardCharsets.UTF_8);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + job.length
                            + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(job);
                    out.flush();
                    connection.close();
                    return;
                }
                lastEventIds.add(lastEventId);
                Script script = scripts.poll(10, TimeUnit.SECONDS);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                if (script != null) {
                    script.answer(lastEventId, out);
                }
            } catch (CutConnection cut) {
                try {
                    connection.setSoLinger(true, 0); // closed below with a reset
                } catch (IOException ignored) {
                    // closing anyway
                }
            } catch (Exception ignored) {
                // the test has ended
            }
            try {
                connection.close();
            } catch (IOException ignored) {
                // closed anyway
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
