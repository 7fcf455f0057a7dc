package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.Skiplock;
import dev.skiplock.spi.PoolSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool's durability setting: FULL unless the URL opts into NORMAL. */
class SqliteDriverTest {
    @TempDir
    Path folder;

    @Test
    void connectionsSyncEveryCommitByDefault() throws SQLException {
        assertThat(pragma("jdbc:sqlite:" + folder.resolve("jobs.db"), "synchronous")).isEqualTo("2"); // FULL
    }

    @Test
    void aUrlMayOptIntoNormal() throws SQLException {
        assertThat(pragma("jdbc:sqlite:" + folder.resolve("jobs.db") + "?synchronous=NORMAL", "synchronous"))
                .isEqualTo("1");
        assertThat(pragma("jdbc:sqlite:" + folder.resolve("jobs.db") + "?synchronous=normal", "journal_mode"))
                .isEqualTo("wal");
    }

    @Test
    void anotherValueIsRejectedNamingTheSetting() {
        assertThatThrownBy(() -> new SqliteDriver().createDataSource("jdbc:sqlite:" + folder.resolve("jobs.db")
                + "?synchronous=OFF", PoolSettings.DEFAULTS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("synchronous:").hasMessageContaining("'OFF'");
        assertThatThrownBy(() -> Skiplock.builder().url("jdbc:sqlite:" + folder.resolve("jobs.db")
                + "?synchronous=fast").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("synchronous:");
    }

    private static String pragma(String url, String name) throws SQLException {
        DataSource dataSource = new SqliteDriver().createDataSource(url, PoolSettings.DEFAULTS);
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("PRAGMA " + name)) {
            row.next();
            return row.getString(1);
        } finally {
            ((HikariDataSource) dataSource).close();
        }
    }
}
