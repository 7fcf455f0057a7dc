package dev.skiplock.conformance;

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
}
