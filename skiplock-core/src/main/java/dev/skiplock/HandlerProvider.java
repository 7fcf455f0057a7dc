package dev.skiplock;

/**
 * Adds Java handlers to the processes the {@code skiplock} command starts ({@code serve} and
 * {@code worker}). Implementations are found with {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/dev.skiplock.HandlerProvider} of a jar on the classpath, e.g.
 * {@code java -cp skiplock.jar:my-handlers.jar dev.skiplock.cli.Main worker}.
 */
public interface HandlerProvider {
    /** Registers this provider's handlers ({@link Skiplock.Builder#handler}) on a process about to start. */
    void register(Skiplock.Builder builder);
}
