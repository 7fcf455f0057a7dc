package dev.skiplock.cli;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Turns what a user types after {@code --db} into a JDBC URL: JDBC URLs pass through;
 * {@code postgresql://user:password@host:port/db?x=y} (libpq style) becomes
 * {@code jdbc:postgresql://host:port/db?x=y&user=user&password=password}.
 */
public final class DatabaseUrl {
    public static final String DEFAULT = "jdbc:sqlite:./skiplock.db";

    private DatabaseUrl() {
    }

    public static String toJdbc(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("--db: is required");
        }
        if (url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:sqlite:")) {
            return url;
        }
        if (url.startsWith("postgresql://") || url.startsWith("postgres://")) {
            return fromLibpq(url);
        }
        throw new IllegalArgumentException("--db: expected jdbc:sqlite:FILE, jdbc:postgresql://… or postgresql://…, got '"
                + url + "'");
    }

    private static String fromLibpq(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--db: not a valid URL: " + e.getMessage());
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("--db: no host in '" + url + "'");
        }
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
        if (uri.getPort() > 0) {
            jdbc.append(':').append(uri.getPort());
        }
        jdbc.append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath());
        StringBuilder query = new StringBuilder(uri.getRawQuery() == null ? "" : uri.getRawQuery());
        String userInfo = uri.getRawUserInfo();
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

    private static void appendParam(StringBuilder query, String name, String value) {
        if (!query.isEmpty()) {
            query.append('&');
        }
        query.append(name).append('=').append(java.net.URLEncoder.encode(value, StandardCharsets.UTF_8));
    }

    private static String decode(String value) {
        return URLDecoder.decode(value, StandardCharsets.UTF_8);
    }
}
