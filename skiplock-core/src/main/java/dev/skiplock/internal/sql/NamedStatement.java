package dev.skiplock.internal.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * One SQL statement with {@code :name} parameters, turned into JDBC {@code ?} placeholders.
 * Skips string literals, quoted identifiers, comments and PostgreSQL {@code ::type} casts.
 *
 * @param name       the statement's {@code -- name:} in its file
 * @param jdbcSql    the text with every parameter replaced by {@code ?}
 * @param parameters parameter names in placeholder order (a name used twice appears twice)
 * @param planPerCall the text has a line {@value #PLAN_PER_CALL}: its best plan depends on the
 *                   values of each call (optional filters), so the database plans it for each call
 *                   rather than caching one plan for any values ({@code Dialect.planPerCall})
 */
public record NamedStatement(String name, String jdbcSql, List<String> parameters, boolean planPerCall) {
    /** The comment line that marks a statement to be planned for each call's values. */
    public static final String PLAN_PER_CALL = "-- plan: per call";

    public NamedStatement {
        parameters = List.copyOf(parameters);
    }

    public static NamedStatement parse(String name, String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        List<String> parameters = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                end = end < 0 ? sql.length() : end + 1;
                out.append(sql, i, end);
                i = end;
            } else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? sql.length() : end;
            } else if (c == ':' && sql.startsWith("::", i)) {
                out.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < sql.length() && isNameStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && isNamePart(sql.charAt(end))) {
                    end++;
                }
                parameters.add(sql.substring(i + 1, end));
                out.append('?');
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        boolean planPerCall = sql.lines().anyMatch(line -> line.strip().equals(PLAN_PER_CALL));
        return new NamedStatement(name, out.toString().strip(), parameters, planPerCall);
    }

    private static boolean isNameStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    private static boolean isNamePart(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }
}
