package dev.skiplock.server;

/**
 * An error answered as {@code {"error": {"code", "message", "field"}}} with its HTTP status (API.md).
 * Thrown from handlers; {@link SkiplockServer} turns it into the response.
 */
final class ApiError extends RuntimeException {
    final int status;
    final String code;
    final String field;

    ApiError(int status, String code, String message, String field) {
        super(message);
        this.status = status;
        this.code = code;
        this.field = field;
    }

    static ApiError invalid(String field, String message) {
        return new ApiError(400, "invalid_argument", field + ": " + message, field);
    }

    /** From an {@link IllegalArgumentException} whose message starts with {@code field: }. */
    static ApiError invalid(IllegalArgumentException e) {
        String message = e.getMessage() == null ? "invalid argument" : e.getMessage();
        int colon = message.indexOf(':');
        String field = colon > 0 && message.substring(0, colon).matches("[A-Za-z_.\\[\\]0-9-]+")
                ? message.substring(0, colon) : null;
        return new ApiError(400, "invalid_argument", message, field);
    }

    static ApiError notFound(String what) {
        return new ApiError(404, "not_found", what + " not found", null);
    }

    static ApiError conflict(String message) {
        return new ApiError(409, "failed_precondition", message, null);
    }
}
