package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockException;
import org.junit.jupiter.api.Test;

class PostgresClientTest extends ClientContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /** Credentials kept out of the URL reach the connection: a role that does not exist is refused. */
    @Test
    void theUserGivenToTheBuilderIsTheOneThatConnects() {
        String withoutUser = database.url().replaceAll("([?&])user=[^&]*&?", "$1");
        assertThatThrownBy(() -> Skiplock.builder().url(withoutUser).user("no_such_role").password("x").build())
                .isInstanceOf(SkiplockException.class).hasMessageContaining("no_such_role");
    }

    /** The library takes the URL form the CLI takes (libpq style), credentials included. */
    @Test
    void aLibpqUrlWorksAsWellAsAJdbcOne() {
        java.net.URI jdbc = java.net.URI.create(database.url().substring("jdbc:".length()));
        String user = java.util.Arrays.stream(jdbc.getQuery().split("&")).filter(part -> part.startsWith("user="))
                .findFirst().orElseThrow().substring("user=".length());
        String libpq = "postgresql://" + user + "@" + jdbc.getHost() + ":" + jdbc.getPort() + jdbc.getPath() + "?"
                + jdbc.getQuery().replaceAll("(^|&)user=[^&]*", "").replaceFirst("^&", "");
        try (Skiplock skiplock = Skiplock.builder().url(libpq).build()) {
            dev.skiplock.Job job = skiplock.enqueue(dev.skiplock.JobRequest.of("libpq", null));
            assertThat(skiplock.get(job.id())).isPresent();
        }
        assertThatThrownBy(() -> Skiplock.builder().url("postgresql:///nohost").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("url: no host");
    }
}
