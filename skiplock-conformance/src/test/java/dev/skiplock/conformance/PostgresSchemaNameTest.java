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

    /**
     * A caller's pool that puts its connections in a schema (HikariCP's {@code schema}, or a
     * {@code connectionInitSql} setting the search path; Spring Boot's
     * {@code spring.datasource.hikari.schema}): the LISTEN connection, which Skiplock opens beside
     * the pool, listens in that schema too. Before, it listened in the URL's schema, the enqueues
     * notified in the pool's, and a worker heard of no job until its poll.
     */
    @Test
    void aPoolThatSetsTheSchemaOfItsConnectionsIsNotified() throws Exception {
        String server = PostgresTestDatabase.server();
        for (String schema : java.util.List.of("pool_schema", "pool_init_sql")) {
            PostgresTestDatabase.execute(server, "CREATE SCHEMA " + schema);
            try (com.zaxxer.hikari.HikariDataSource pool = poolIn(server, schema);
                    com.zaxxer.hikari.HikariDataSource producerPool = poolIn(server, schema);
                    Skiplock worker = Skiplock.builder().dataSource(pool).config(WORKER)
                            .handler("work", String.class, context -> JobOutcome.complete("done")).build().start();
                    SkiplockClient producer = Skiplock.builder().dataSource(producerPool)
                            .config(SkiplockConfig.builder().build()).buildClient()) {
                Job job = producer.enqueue(JobRequest.of("work", "x"));
                assertThat(producer.awaitTerminal(job.id(), ContractBase.WAIT).status()).as(schema)
                        .isEqualTo(JobStatus.SUCCEEDED);
            } finally {
                PostgresTestDatabase.execute(server, "DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /** A pool on the server's URL whose connections are in {@code schema}: by HikariCP's schema, or by its init SQL. */
    private static com.zaxxer.hikari.HikariDataSource poolIn(String server, String schema) {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(server);
        config.setMaximumPoolSize(4);
        if (schema.equals("pool_schema")) {
            config.setSchema(schema);
        } else {
            config.setConnectionInitSql("SET search_path TO " + schema);
        }
        return new com.zaxxer.hikari.HikariDataSource(config);
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
