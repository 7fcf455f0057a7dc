package dev.skiplock;

/** Root of every exception Skiplock throws (besides {@link IllegalArgumentException} for bad input). */
public class SkiplockException extends RuntimeException {
    public SkiplockException(String message) {
        super(message);
    }

    public SkiplockException(String message, Throwable cause) {
        super(message, cause);
    }
}
