package dev.skiplock.conformance;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A loopback TCP proxy between worker processes and PostgreSQL that loses connections on purpose.
 * {@link #cutAll()} closes every connection at once. And it reads the wire protocol just enough to
 * find the answer to each {@code claim_jobs}: it holds that answer back until the server said the
 * claim's transaction is over (ReadyForQuery, idle: committed), notes the ids of the jobs it took,
 * and for every n-th claim that took jobs closes the connection instead of passing the answer on:
 * the claim committed, and its worker never learns what it holds. A claim in a transaction block
 * (a worker's warm-up rehearses the claim in one it rolls back) commits nothing: its answer is
 * never recorded, cut or not. The proxy does not follow a block to its end: a claim in a block that
 * then commits would go unrecorded too, and its cuts unseen. No PostgreSQL path claims so (the
 * claims run in autocommit, the warm-up's in blocks rolled back); one that did would need the
 * block's end followed here first (helper-120).
 */
final class FaultProxy implements AutoCloseable {
    /**
     * A claim's answer as it came through: when the claim was sent, when its answer ended, which
     * jobs it took (first column of each row), and whether the answer was cut. A worker killed
     * between the two sends no more statements, but its claim commits and its answer passes on
     * into a socket no one reads.
     */
    record Claim(long sentAtMillis, long atMillis, List<String> jobIds, boolean cut) {
    }

    /** Untyped first messages asking to encrypt the connection. */
    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;
    /** claim_jobs: a call of the claim's function (migration 0016). */
    private static final Pattern CLAIM = Pattern.compile("skiplock_claim_jobs\\(");

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final int cutClaimEvery;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final List<Claim> claims = new CopyOnWriteArrayList<>();
    private final AtomicInteger claimsWithJobs = new AtomicInteger();
    private volatile boolean open = true;
    /** Runs before a held claim's answer is passed on (a test's pause between the answer and its write). */
    private volatile Runnable beforeAnswerPassedOn = () -> { };
    /** Connections whose answers stopped passing (each link's server-to-client side, once it recorded what it held). */
    private final AtomicInteger answersEnded = new AtomicInteger();

    /** Listens on a free loopback port; forwards to {@code host:port}; cuts every {@code cutClaimEvery}-th claim answer (0: none). */
    FaultProxy(String host, int port, int cutClaimEvery) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = new InetSocketAddress(host, port);
        this.cutClaimEvery = cutClaimEvery;
        Thread.ofPlatform().daemon().name("fault-proxy-" + listener.getLocalPort()).start(this::accept);
    }

    /** {@code jdbcUrl} (jdbc:postgresql://host:port/…) pointed at this proxy, without TLS (the proxy reads the protocol). */
    String url(String jdbcUrl) {
        String proxied = jdbcUrl.replaceFirst("//[^/]+/", "//127.0.0.1:" + listener.getLocalPort() + "/");
        return proxied + (proxied.contains("?") ? "&" : "?") + "sslmode=disable&gssEncMode=disable";
    }

    /** The host and port of a JDBC URL's server. */
    static InetSocketAddress serverOf(String jdbcUrl) {
        var matcher = Pattern.compile("//([^:/]+):(\\d+)/").matcher(jdbcUrl);
        if (!matcher.find()) {
            throw new IllegalArgumentException("no host:port in " + jdbcUrl);
        }
        return InetSocketAddress.createUnresolved(matcher.group(1), Integer.parseInt(matcher.group(2)));
    }

    /** Closes every connection now; returns how many there were. */
    int cutAll() {
        int cut = 0;
        for (Link link : links) {
            link.close();
            cut++;
        }
        return cut;
    }

    List<Claim> claims() {
        return List.copyOf(claims);
    }

    /** {@code hook} runs on the proxy's thread after a claim's answer ended, before it is passed on. */
    void beforeAnswerPassedOn(Runnable hook) {
        this.beforeAnswerPassedOn = hook;
    }

    /** How many connections' answers stopped passing, each after {@link #claims} took what it held. */
    int answersEnded() {
        return answersEnded.get();
    }

    /**
     * Stops passing anything on over the connections that sent a LISTEN, leaving their sockets
     * open, as a firewall's idle timeout or a paused host does: nothing reaches either side again,
     * and nothing says so. Returns how many there were.
     */
    int stallListeners() {
        int stalled = 0;
        for (Link link : links) {
            if (link.listening) {
                link.stalled = true;
                stalled++;
            }
        }
        return stalled;
    }

    @Override
    public void close() throws IOException {
        open = false;
        listener.close();
        cutAll();
    }

    private void accept() {
        while (open) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                try {
                    server.connect(new InetSocketAddress(target.getHostString(), target.getPort()), 5_000);
                } catch (IOException e) {
                    client.close(); // the database is down (restarting): the worker sees a refused connection
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Link link = new Link(client, server);
                links.add(link);
                Thread.ofVirtual().start(link::pumpToServer);
                Thread.ofVirtual().start(link::pumpToClient);
            } catch (IOException e) {
                if (open) {
                    System.err.println("fault proxy: accept failed: " + e.getMessage());
                }
            }
        }
    }

    /** One client connection and its server connection, with a thread per direction. */
    private final class Link {
        private final Socket client;
        private final Socket server;
        /** Claims sent whose answer has not ended yet (written by the client side, read by the server side). */
        private final AtomicInteger claimsAwaited = new AtomicInteger();
        /** When the last claim was sent (a connection runs one statement at a time). */
        private volatile long claimSentAtMillis;
        /** Whether the last claim was sent in a transaction block, which it cannot commit. */
        private volatile boolean claimInBlock;
        /** Whether the client opened a transaction block the server has not yet said is over. */
        private volatile boolean blockOpen;
        /** Whether the client sent a LISTEN on this connection. */
        volatile boolean listening;
        /** Whether nothing more passes either way ({@link #stallListeners}). */
        volatile boolean stalled;
        private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void close() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(server);
            closed.countDown();
        }

        /** A stalled link's pump: passes nothing on, closes nothing, until the proxy closes the link. */
        private void holdUntilClosed() {
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Client → server: remembers each prepared statement's text and counts the claims it binds. */
        void pumpToServer() {
            Map<String, String> statements = new HashMap<>();
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream()));
                    OutputStream out = new BufferedOutputStream(server.getOutputStream())) {
                // The startup message has no type byte. url() turns TLS and GSS encryption off: the
                // proxy reads the protocol, so a request to encrypt is a mistake of the harness.
                byte[] startup = read(in, in.readInt() - 4);
                int code = ByteBuffer.wrap(startup).getInt();
                if (code == SSL_REQUEST || code == GSS_REQUEST) {
                    throw new IllegalStateException("fault proxy: a client asked for encryption; use url()");
                }
                out.write(ByteBuffer.allocate(4).putInt(startup.length + 4).array());
                out.write(startup);
                out.flush();
                while (true) {
                    int type = in.readUnsignedByte();
                    int length = in.readInt();
                    byte[] body = read(in, length - 4);
                    if (stalled) {
                        holdUntilClosed();
                        return;
                    }
                    if (type == 'Q') {
                        String query = cString(body, 0);
                        listening |= isListen(query);
                        blockOpen |= isBegin(query);
                    }
                    if (type == 'P') {
                        String name = cString(body, 0);
                        String query = cString(body, name.getBytes(StandardCharsets.UTF_8).length + 1);
                        statements.put(name, query);
                        listening |= isListen(query);
                    } else if (type == 'B') {
                        String portal = cString(body, 0);
                        String query = statements.get(cString(body, portal.getBytes(StandardCharsets.UTF_8).length + 1));
                        // pgjdbc opens a block with BEGIN sent in the same batch as its first statement
                        blockOpen |= query != null && isBegin(query);
                        if (query != null && CLAIM.matcher(query).find()) {
                            claimSentAtMillis = System.currentTimeMillis();
                            claimInBlock = blockOpen;
                            claimsAwaited.incrementAndGet(); // before the server can answer it
                        }
                    }
                    out.write(type);
                    out.write(ByteBuffer.allocate(4).putInt(length).array());
                    out.write(body);
                    if (in.available() == 0) {
                        out.flush();
                    }
                }
            } catch (IOException e) {
                close();
            } catch (RuntimeException e) {
                System.err.println(e.getMessage());
                close();
            }
        }

        /** Server → client: passes messages on, except a claim's answer, held until its transaction ended. */
        void pumpToClient() {
            Held held = null;
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(server.getInputStream()));
                    OutputStream out = new BufferedOutputStream(client.getOutputStream())) {
                while (true) {
                    int type = in.readUnsignedByte();
                    int length = in.readInt();
                    byte[] body = read(in, length - 4);
                    if (stalled) {
                        holdUntilClosed();
                        return;
                    }
                    if (held == null && claimsAwaited.get() > 0) {
                        held = new Held(claimSentAtMillis, claimInBlock);
                    }
                    if (type == 'Z' && body[0] == 'I') {
                        blockOpen = false; // the server is idle: the next statement starts outside a block
                    }
                    if (held == null) {
                        write(out, type, length, body);
                        if (in.available() == 0) {
                            out.flush();
                        }
                        continue;
                    }
                    held.add(type, length, body);
                    if (type != 'Z') {
                        continue;
                    }
                    claimsAwaited.decrementAndGet();
                    held.ended(body[0]);
                    boolean committed = held.committed();
                    if (committed && !held.jobIds.isEmpty() && cutClaimEvery > 0
                            && claimsWithJobs.incrementAndGet() % cutClaimEvery == 0) {
                        claims.add(new Claim(held.sentAtMillis, System.currentTimeMillis(), List.copyOf(held.jobIds), true));
                        close();
                        return;
                    }
                    // stamped before it is passed on (the worker may run a job before this thread goes on),
                    // recorded once written: a write that fails (the worker gone) records it as cut, below
                    long answeredAt = System.currentTimeMillis();
                    beforeAnswerPassedOn.run();
                    out.write(held.bytes.toByteArray());
                    out.flush();
                    if (committed) {
                        claims.add(new Claim(held.sentAtMillis, answeredAt, List.copyOf(held.jobIds), false));
                    }
                    held = null;
                }
            } catch (IOException e) {
                if (held != null && !held.jobIds.isEmpty() && held.mayHaveCommitted()) {
                    // The connection went (cut, or the database restarted) while a claim's answer was
                    // held: the claim may have committed, and its worker will not see its rows. One
                    // whose answer ended in a block or in an error, or that ran in a block, did not: the
                    // server rolled it back (the warm-up's claims, a worker stopped during its start).
                    claims.add(new Claim(held.sentAtMillis, System.currentTimeMillis(), List.copyOf(held.jobIds), true));
                }
                close();
            } finally {
                answersEnded.incrementAndGet();
            }
        }
    }

    /** A claim's answer being held back. */
    private static final class Held {
        final long sentAtMillis;
        /** Sent in a transaction block: the claim commits only if that block does, which the proxy does not follow. */
        final boolean inBlock;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<String> jobIds = new ArrayList<>();
        boolean failed;
        /** The transaction status the answer ended with (ReadyForQuery), or 0 while it has not ended. */
        byte endedWith;

        Held(long sentAtMillis, boolean inBlock) {
            this.sentAtMillis = sentAtMillis;
            this.inBlock = inBlock;
        }

        void ended(byte transactionStatus) {
            endedWith = transactionStatus;
        }

        /** The answer ended with the server idle (no block left open) and no error: the claim committed. */
        boolean committed() {
            return endedWith == 'I' && !failed;
        }

        /** Committed, or cut before the answer ended while the claim ran on its own (autocommit). */
        boolean mayHaveCommitted() {
            return endedWith == 0 ? !inBlock && !failed : committed();
        }

        void add(int type, int length, byte[] body) throws IOException {
            write(bytes, type, length, body);
            if (type == 'E') {
                failed = true;
            } else if (type == 'D') {
                String id = firstColumnAsUuid(body);
                if (id != null) {
                    jobIds.add(id);
                }
            }
        }
    }

    /** claim_jobs returns rows of skiplock_jobs: the first column is the job's id, as text (36 bytes) or binary (16). */
    private static String firstColumnAsUuid(byte[] dataRow) {
        ByteBuffer row = ByteBuffer.wrap(dataRow);
        if (row.getShort() < 1) {
            return null;
        }
        int length = row.getInt();
        if (length == 16) {
            return new UUID(row.getLong(), row.getLong()).toString();
        }
        if (length == 36) {
            return new String(dataRow, row.position(), 36, StandardCharsets.US_ASCII);
        }
        return null;
    }

    private static byte[] read(DataInputStream in, int length) throws IOException {
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    private static void write(OutputStream out, int type, int length, byte[] body) throws IOException {
        out.write(type);
        out.write(ByteBuffer.allocate(4).putInt(length).array());
        out.write(body);
    }

    private static boolean isBegin(String query) {
        String statement = query.strip().toUpperCase(java.util.Locale.ROOT);
        return statement.startsWith("BEGIN") || statement.startsWith("START TRANSACTION");
    }

    private static boolean isListen(String query) {
        return query.strip().toUpperCase(java.util.Locale.ROOT).startsWith("LISTEN");
    }

    private static String cString(byte[] body, int from) {
        int end = from;
        while (end < body.length && body[end] != 0) {
            end++;
        }
        return new String(body, from, end - from, StandardCharsets.UTF_8);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is the point; a socket already closed is fine
        }
    }
}
