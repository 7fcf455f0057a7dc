package dev.skiplock.postgres;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.net.SocketFactory;

/**
 * Sockets for the LISTEN connection that hand each notification's payload over as soon as its
 * bytes arrive. pgjdbc's {@code getNotifications} waits another millisecond on the socket after
 * every notification before it returns (measured; see ../shared/research/peer-benchmarks.md),
 * which was most of a job's pickup latency. pgjdbc still parses everything itself; this only reads
 * along. pgjdbc creates the factory from its class name; {@code socketFactoryArg} names the
 * registered receiver.
 */
public final class NotificationSocketFactory extends SocketFactory {
    private static final Map<String, NotificationScanner> SCANNERS = new ConcurrentHashMap<>();

    private final NotificationScanner scanner;

    /** Used by pgjdbc, which passes the connection properties. */
    public NotificationSocketFactory(Properties properties) {
        this(properties.getProperty("socketFactoryArg"));
    }

    /** Used by pgjdbc when it passes {@code socketFactoryArg} alone. */
    public NotificationSocketFactory(String key) {
        NotificationScanner registered = key == null ? null : SCANNERS.get(key);
        if (registered == null) {
            throw new IllegalArgumentException("socketFactoryArg: no notification receiver registered as " + key);
        }
        this.scanner = registered;
    }

    /** Registers a receiver of payloads; returns the key to pass as {@code socketFactoryArg}. */
    static String register(NotificationScanner scanner) {
        String key = UUID.randomUUID().toString();
        SCANNERS.put(key, scanner);
        return key;
    }

    static void unregister(String key) {
        SCANNERS.remove(key);
    }

    /** A receiver of payloads for the one connection made with it (each reconnect registers anew). */
    static NotificationScanner scanner(Consumer<String> payloads) {
        return new NotificationScanner(payloads);
    }

    @Override
    public Socket createSocket() {
        return new ScanningSocket(scanner);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
        Socket socket = createSocket();
        if (local != null) {
            socket.bind(local);
        }
        socket.connect(remote);
        return socket;
    }

    private static final class ScanningSocket extends Socket {
        private final NotificationScanner scanner;
        private InputStream input;

        ScanningSocket(NotificationScanner scanner) {
            this.scanner = scanner;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (input == null) {
                input = new ScanningInputStream(super.getInputStream(), scanner);
            }
            return input;
        }
    }

    private static final class ScanningInputStream extends FilterInputStream {
        private final NotificationScanner scanner;

        ScanningInputStream(InputStream in, NotificationScanner scanner) {
            super(in);
            this.scanner = scanner;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                scanner.accept(new byte[] {(byte) b}, 0, 1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int read = super.read(buffer, offset, length);
            if (read > 0) {
                scanner.accept(buffer, offset, read);
            }
            return read;
        }
    }
}
