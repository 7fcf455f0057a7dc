package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.SkiplockException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every notification goes to channel {@code skiplock:<schema>}, and PostgreSQL refuses a channel
 * over 63 bytes: a schema named in more than 54 bytes is refused as an instance starts, naming it.
 * Before, the start succeeded and every enqueue failed ("channel name too long").
 */
class PostgresSchemaNameTest {
    /** Polling is off: the job is picked up only when its enqueue's notification arrives. */
    private static final SkiplockConfig WORKER = SkiplockConfig.builder().queue("default", 1)
            .pollInterval(Duration.ofHours(1)).build();

    @Test
    void aSchemaNamedTooLongForTheChannelIsRefusedAtTheStartNamingIt() throws Exception {
        String tooLong = "s" + "x".repeat(54);
        inSchema(tooLong, url -> {
            assertThatThrownBy(() -> Skiplock.builder().url(url).config(WORKER).build())
                    .isInstanceOf(SkiplockException.class).hasMessageContaining("'" + tooLong + "'")
                    .hasMessageContaining("at most 54 bytes");
            assertThatThrownBy(() -> Skiplock.builder().url(url).config(SkiplockConfig.builder().build()).buildClient())
                    .as("a client, which only reads the migrations").isInstanceOf(SkiplockException.class)
                    .hasMessageContaining("'" + tooLong + "'");
        });
    }

    /** One migrated under a short name and renamed: a worker that does not migrate is refused all the same. */
    @Test
    void aWorkerThatDoesNotMigrateIsRefusedToo() throws Exception {
        String tooLong = "r" + "x".repeat(54);
        String server = PostgresTestDatabase.server();
        PostgresTestDatabase.execute(server, "CREATE SCHEMA renamed_later");
        try {
            Skiplock.builder().url(urlOf("renamed_later")).config(SkiplockConfig.builder().build()).migrate();
            PostgresTestDatabase.execute(server, "ALTER SCHEMA renamed_later RENAME TO " + tooLong);
            assertThatThrownBy(() -> Skiplock.builder().url(urlOf(tooLong))
                    .config(SkiplockConfig.builder().queue("default", 1).migrate(false).build()).build())
                    .isInstanceOf(SkiplockException.class).hasMessageContaining("'" + tooLong + "'");
        } finally {
            PostgresTestDatabase.execute(server, "DROP SCHEMA IF EXISTS renamed_later CASCADE");
            PostgresTestDatabase.execute(server, "DROP SCHEMA IF EXISTS " + tooLong + " CASCADE");
        }
    }

    @Test
    void aSchemaOfTheLongestNameIsNotified() throws Exception {
        String longest = "s" + "x".repeat(53);
        inSchema(longest, url -> {
            try (Skiplock worker = Skiplock.builder().url(url).config(WORKER)
                    .handler("work", String.class, context -> JobOutcome.complete("done")).build().start();
                    SkiplockClient producer = Skiplock.builder().url(url).config(SkiplockConfig.builder().build())
                            .buildClient()) {
                Job job = producer.enqueue(JobRequest.of("work", "x"));
                assertThat(producer.awaitTerminal(job.id(), ContractBase.WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
            }
        });
    }

    /** A test given the URL of its schema. */
    private interface InSchema {
        void run(String url) throws Exception;
    }

    private static void inSchema(String schema, InSchema test) throws Exception {
        String server = PostgresTestDatabase.server();
        PostgresTestDatabase.execute(server, "CREATE SCHEMA " + schema);
        try {
            test.run(urlOf(schema));
        } finally {
            PostgresTestDatabase.execute(server, "DROP SCHEMA " + schema + " CASCADE");
        }
    }

    private static String urlOf(String schema) {
        String server = PostgresTestDatabase.server();
        return server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }
}
