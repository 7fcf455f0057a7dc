package dev.skiplock.cli;

import dev.skiplock.spi.Driver;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Turns what a user types after {@code --db} into a JDBC URL, as the library's
 * {@code Skiplock.Builder.url} does: each driver says which URLs it understands
 * ({@code Driver.jdbcUrl}: JDBC URLs, and PostgreSQL's {@code postgresql://user@host/db}).
 */
public final class DatabaseUrl {
    public static final String DEFAULT = "jdbc:sqlite:./skiplock.db";

    private DatabaseUrl() {
    }

    /** {@code jdbcUrl} to print: a password in it (a parameter, or {@code user:password@}) as {@code ***}. */
    public static String withoutPassword(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)([?&;]password=)[^&;]*", "$1***").replaceAll("(//[^/@:]*:)[^/@]*@", "$1***@");
    }

    public static String toJdbc(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("--db: is required");
        }
        for (Driver driver : ServiceLoader.load(Driver.class)) {
            try {
                Optional<String> jdbc = driver.jdbcUrl(url);
                if (jdbc.isPresent()) {
                    return jdbc.get();
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--db: " + e.getMessage(), e);
            }
        }
        // only the scheme: the rest of a refused URL may hold a password, however it is written
        int colon = url.indexOf(':');
        throw new IllegalArgumentException("--db: expected jdbc:sqlite:FILE, jdbc:postgresql://… or postgresql://…, got a URL"
                + " of scheme '" + (colon < 0 ? "(none)" : url.substring(0, Math.min(colon, 40))) + "'");
    }
}
