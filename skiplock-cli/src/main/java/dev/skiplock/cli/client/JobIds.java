package dev.skiplock.cli.client;

import java.util.UUID;
import java.util.regex.Pattern;

/** A job id typed on the command line, checked before it goes into a request's path. */
final class JobIds {
    /** A UUID in its one written form (java.util.UUID alone takes "1-1-1-1-1"). */
    private static final Pattern FORM = Pattern.compile("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}");

    private JobIds() {
    }

    /**
     * {@code text} as a job id, or an {@link IllegalArgumentException} naming {@code ID} (exit 2):
     * an empty id would list the jobs, and "../workers" reach another route.
     */
    static UUID parse(String text) {
        if (text == null || !FORM.matcher(text).matches()) {
            throw new IllegalArgumentException("ID: not a job id: '" + text + "'");
        }
        return UUID.fromString(text);
    }
}
