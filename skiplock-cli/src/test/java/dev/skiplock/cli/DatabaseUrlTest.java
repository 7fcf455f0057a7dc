package dev.skiplock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DatabaseUrlTest {

    @Test
    void jdbcUrlsPassThrough() {
        assertThat(DatabaseUrl.toJdbc("jdbc:sqlite:./skiplock.db")).isEqualTo("jdbc:sqlite:./skiplock.db");
        assertThat(DatabaseUrl.toJdbc("jdbc:postgresql://h/db")).isEqualTo("jdbc:postgresql://h/db");
    }

    @Test
    void libpqUrlsBecomeJdbcWithCredentialsAsParameters() {
        assertThat(DatabaseUrl.toJdbc("postgresql://postgres@127.0.0.1:5432/test"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        assertThat(DatabaseUrl.toJdbc("postgres://u:p%40ss@db/app?sslmode=disable"))
                .isEqualTo("jdbc:postgresql://db/app?sslmode=disable&user=u&password=p%40ss");
    }

    @Test
    void anythingElseIsRejectedNamingTheOption() {
        assertThatThrownBy(() -> DatabaseUrl.toJdbc("mysql://x/y")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--db:");
    }

    /** A refused URL's message never holds its password (before: the whole URL, echoed). */
    @Test
    void aRefusedUrlIsNotEchoedWithItsPassword() {
        for (String url : java.util.List.of("postgresql://app:s3cr%t@db/app", "postgresq://app:s3cret@db/app",
                "postgresql://app:s3cret@/app", "postgresql://app:s3c/ret@db/app", "postgresql://app:s3c#ret@db/app",
                "postgresq://app:s3c@ret@db/app", "postgresql://u:s3cret@db_1:abc/app")) {
            assertThatThrownBy(() -> DatabaseUrl.toJdbc(url)).as(url).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--db:").message().doesNotContain("s3cr");
        }
    }

    /** A container's host name holds '_', which java.net.URI takes for no host at all; libpq takes several hosts. */
    @Test
    void aHostNameWithAnUnderscoreIsAHostAndSeveralHostsAreTaken() {
        assertThat(DatabaseUrl.toJdbc("postgresql://app:pw@db_1:5433/app"))
                .isEqualTo("jdbc:postgresql://db_1:5433/app?user=app&password=pw");
        assertThat(DatabaseUrl.toJdbc("postgresql://u@db_1:/app")).isEqualTo("jdbc:postgresql://db_1/app?user=u");
        assertThat(DatabaseUrl.toJdbc("postgresql://u:p@h1:5432,h2:5433/db"))
                .isEqualTo("jdbc:postgresql://h1:5432,h2:5433/db?user=u&password=p");
    }

    /** A '+' of a libpq URL's password is a '+' (URLDecoder, a form's decoder, made it a space). */
    @Test
    void aPlusInAPasswordStaysAPlus() {
        assertThat(DatabaseUrl.toJdbc("postgresql://app:a+b@db/app")).isEqualTo("jdbc:postgresql://db/app?user=app&password=a%2Bb");
    }

    /** A token read with its file's CR is taken without it; one no header can carry is refused unechoed. */
    @Test
    void aTokenIsStrippedAndOneAHeaderCannotCarryIsRefusedUnechoed() {
        new dev.skiplock.cli.client.ApiClient("http://127.0.0.1:1", "s3cret\r");
        assertThatThrownBy(() -> new dev.skiplock.cli.client.ApiClient("http://127.0.0.1:1", "s3c ret"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--token:")
                .message().doesNotContain("s3c");
    }

    @Test
    void badUsageExitsWithTwo() {
        assertThat(Main.run("bench", "sideways")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.run("bench", "drain", "--n", "0")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.run("no-such-command")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.run("migrate", "--db", "mysql://x/y")).isEqualTo(Main.EXIT_USAGE);
    }

    @Test
    void unreachableDatabaseExitsWithThree() {
        assertThat(Main.run("migrate", "--db", "jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2"))
                .isEqualTo(Main.EXIT_UNREACHABLE);
    }
}
