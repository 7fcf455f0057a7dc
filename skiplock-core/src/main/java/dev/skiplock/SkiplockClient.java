package dev.skiplock;

import javax.sql.DataSource;

/**
 * An enqueue-only Skiplock for an application that produces jobs and runs none (a web app whose
 * workers run elsewhere): the whole {@link JobClient} (enqueue in your transaction, get, list,
 * cancel, retry, events), nothing to start. Built by {@link Skiplock.Builder#buildClient()}, which
 * neither registers handlers nor migrates the schema: it checks that the schema is current.
 * Durable jobs only ({@link JobRequest#withDurable} false needs a handler in this process).
 */
public interface SkiplockClient extends JobClient, AutoCloseable {
    /** The pool this client uses (Skiplock's own from {@code url}, or the one you gave). */
    DataSource dataSource();

    /** A client scoped to {@code tenant}. */
    JobClient tenant(String tenant);

    /** Closes the pool if Skiplock created it. */
    @Override
    void close();
}
