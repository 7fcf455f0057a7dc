package dev.skiplock;

import java.util.regex.Pattern;

/** The one rule for names (queue, kind, tool, unique key, tenant): {@code [A-Za-z0-9_.:-]{1,128}} (DESIGN §7). */
public final class Names {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

    private Names() {
    }

    /** Returns {@code value} or throws an {@link IllegalArgumentException} naming {@code field}. */
    public static String check(String field, String value) {
        if (value == null) {
            throw new IllegalArgumentException(field + ": is required");
        }
        if (!NAME.matcher(value).matches()) {
            throw new IllegalArgumentException(field + ": must match [A-Za-z0-9_.:-]{1,128}, got '"
                    + abbreviate(value) + "'");
        }
        return value;
    }

    private static String abbreviate(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "…";
    }
}
