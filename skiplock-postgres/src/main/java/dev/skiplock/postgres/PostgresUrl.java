package dev.skiplock.postgres;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The URL forms the PostgreSQL driver understands besides JDBC's: libpq style
 * {@code postgresql://user:password@host:port/db?x=y} (or {@code postgres://}) becomes
 * {@code jdbc:postgresql://host:port/db?x=y&user=user&password=password}, so the library, the CLI and
 * the server take the same URLs.
 */
final class PostgresUrl {
    private PostgresUrl() {
    }

    /** The JDBC URL for {@code url}; empty if it is not a PostgreSQL URL. */
    static Optional<String> toJdbc(String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            return Optional.of(url);
        }
        if (url.startsWith("postgresql://") || url.startsWith("postgres://")) {
            return Optional.of(fromLibpq(url));
        }
        return Optional.empty();
    }

    /** Messages never echo the URL: it may hold a password. */
    private static String fromLibpq(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("not a valid URL: " + e.getReason() + " at index " + e.getIndex());
        }
        // java.net.URI takes no '_' in a host name (db_1, a container's name): read the authority then
        String hostAndPort = uri.getHost() != null ? null : hostAndPort(uri.getRawAuthority());
        if (uri.getHost() == null && hostAndPort == null) {
            throw new IllegalArgumentException("no host in the URL");
        }
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://");
        if (hostAndPort != null) {
            jdbc.append(hostAndPort);
        } else {
            jdbc.append(uri.getHost());
            if (uri.getPort() > 0) {
                jdbc.append(':').append(uri.getPort());
            }
        }
        jdbc.append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath());
        StringBuilder query = new StringBuilder(uri.getRawQuery() == null ? "" : uri.getRawQuery());
        String authority = uri.getRawAuthority();
        String userInfo = hostAndPort == null ? uri.getRawUserInfo()
                : authority.contains("@") ? authority.substring(0, authority.lastIndexOf('@')) : null;
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            appendParam(query, "user", decode(user));
            if (colon >= 0) {
                appendParam(query, "password", decode(userInfo.substring(colon + 1)));
            }
        }
        if (!query.isEmpty()) {
            jdbc.append('?').append(query);
        }
        return jdbc.toString();
    }

    /** One host of a libpq URL: a name (which may hold '_'), or an IPv6 address in brackets; then a port, maybe empty. */
    private static final String HOST_PORT = "(\\[[0-9A-Fa-f:.%]+\\]|[A-Za-z0-9._~-]+)(:[0-9]*)?";

    /**
     * {@code host[:port][,host[:port]]…} of an authority ({@code user:password@hosts}), an empty port
     * left out; null when it is not that (then nothing of it is echoed: it may hold the password).
     */
    private static String hostAndPort(String authority) {
        if (authority == null) {
            return null;
        }
        String hosts = authority.substring(authority.lastIndexOf('@') + 1);
        return hosts.matches(HOST_PORT + "(," + HOST_PORT + ")*") ? hosts.replaceAll(":(?=,|$)", "") : null;
    }

    private static void appendParam(StringBuilder query, String name, String value) {
        if (!query.isEmpty()) {
            query.append('&');
        }
        query.append(name).append('=').append(java.net.URLEncoder.encode(value, StandardCharsets.UTF_8));
    }

    /** Percent-decoding only: a '+' is a '+' in a libpq URL, not a space as in a form. */
    private static String decode(String value) {
        return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
