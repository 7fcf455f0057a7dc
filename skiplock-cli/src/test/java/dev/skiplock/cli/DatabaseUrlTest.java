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
