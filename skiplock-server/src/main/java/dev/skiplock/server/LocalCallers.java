package dev.skiplock.server;

import io.javalin.http.Context;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * What a server without tokens answers: only calls of its own machine's programs. Listening on
 * loopback is not enough: a page of any site the operator's browser opens can send a request to
 * {@code 127.0.0.1} (a form or a {@code no-cors} fetch needs no preflight), and a page whose name
 * the attacker re-points at {@code 127.0.0.1} (DNS rebinding) is even same-origin with the server
 * and reads the answers. So a call must be addressed to a loopback name ({@code Host}: an address,
 * {@code localhost}, or the name the server was told to listen on) and, when a browser says which
 * page sent it ({@code Origin}), come from the server's own pages. The CLI and scripts send no
 * {@code Origin}; the dashboard's calls are same-origin. With tokens none of this applies: a
 * browser never adds a bearer token by itself.
 */
final class LocalCallers {
    private final String listenHost;

    LocalCallers(String listenHost) {
        this.listenHost = listenHost.toLowerCase(Locale.ROOT);
    }

    /** Refuses (403 naming the header) a call not addressed to a loopback name, or sent by another origin's page. */
    void check(Context ctx) {
        String host = ctx.header("Host");
        if (host == null || !isLoopbackName(hostName(host))) {
            throw new ApiError(403, "permission_denied", "Host: without tokens the server answers only calls "
                    + "addressed to a loopback name (127.0.0.1, [::1], localhost); configure --tokens to be "
                    + "reached as " + host, "Host");
        }
        String origin = ctx.header("Origin");
        if (origin != null && !sameOrigin(origin, host)) {
            throw new ApiError(403, "permission_denied", "Origin: without tokens the server answers no page "
                    + "but its own (this call came from " + origin + ")", "Origin");
        }
    }

    /** The name part of a {@code Host} value: {@code [::1]:8080} → {@code ::1}, {@code localhost:8080} → {@code localhost}. */
    private static String hostName(String host) {
        String value = host.strip().toLowerCase(Locale.ROOT);
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            return end < 0 ? value : value.substring(1, end);
        }
        int colon = value.indexOf(':');
        return colon < 0 ? value : value.substring(0, colon);
    }

    private boolean isLoopbackName(String name) {
        if (name.equals("localhost") || name.endsWith(".localhost") || name.equals(listenHost)) {
            return true; // names that never leave the machine (RFC 6761), or the one the operator chose
        }
        if (!name.matches("[0-9.]+|[0-9a-f:.]*:[0-9a-f:.]*")) {
            return false; // any other name: resolving it is what a rebinding attacker controls
        }
        try {
            return InetAddress.getByName(name).isLoopbackAddress(); // a literal: parsed, not looked up
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether {@code origin} (a browser's {@code scheme://host[:port]}) names this server as {@code host} does. */
    private static boolean sameOrigin(String origin, String host) {
        try {
            URI uri = URI.create(origin.strip());
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getRawAuthority() == null) {
                return false; // "null" (a sandboxed frame, a file), https (this server speaks http)
            }
            String authority = uri.getRawAuthority().toLowerCase(Locale.ROOT);
            String expected = host.strip().toLowerCase(Locale.ROOT);
            return authority.equals(expected) || authority.equals(expected + ":80") || expected.equals(authority + ":80");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
