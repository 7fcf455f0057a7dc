package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every change of a job's status is accounted for one way or the other (migration 0017): the hot
 * path's statements name only {@code status} and the store writes their events and counts
 * ({@code hot_path.sql}); every other statement, and every trigger's own update, names {@code
 * bookkept_by_trigger}, which is what the status triggers fire on. A statement that did neither
 * would change a status with no event and no count.
 */
class SqliteStatusBookkeepingTest {
    /** The statements whose status changes the store accounts for (HotPathBookkeeping). */
    private static final Set<String> BOOKKEPT_BY_THE_STORE = Set.of("claim_jobs", "complete_successes",
            "release_dependents");
    private static final String MARKER = "bookkept_by_trigger = 1";
    private static final Pattern UPDATES_JOBS = Pattern.compile("UPDATE skiplock_jobs\\b");
    private static final Pattern SETS_STATUS = Pattern.compile("(\\bSET|,)\\s+status\\s*=");

    @TempDir
    Path folder;

    @Test
    void everyStatementThatChangesAStatusIsAccountedForByTheStoreOrByTheTriggers() {
        Map<String, String> statusChanges = new LinkedHashMap<>();
        for (String file : List.of("jobs", "hot_path", "steps", "signals", "queues", "cron", "workers", "events")) {
            for (NamedStatement statement : SqlFile.load("dev/skiplock/sqlite/sql/" + file + ".sql").statements().values()) {
                if (changesStatus(statement.jdbcSql())) {
                    statusChanges.put(statement.name(), statement.jdbcSql());
                }
            }
        }
        assertThat(statusChanges.keySet()).as("statements that change a status").containsAll(BOOKKEPT_BY_THE_STORE)
                .contains("complete_jobs", "release_jobs", "unclaim_jobs", "cancel_job", "retry_job", "settle_waiting_jobs");
        statusChanges.forEach((name, sql) -> {
            if (BOOKKEPT_BY_THE_STORE.contains(name)) {
                assertThat(sql).as(name + ", accounted for by the store, fires no status trigger").doesNotContain(MARKER);
            } else {
                assertThat(sql).as(name + " names the column the status triggers fire on").contains(MARKER);
            }
        });
    }

    @Test
    void theStatusTriggersFireOnTheMarkerAndTheirOwnStatusChangesNameIt() throws SQLException {
        Path file = folder.resolve("jobs.db");
        Skiplock.builder().url("jdbc:sqlite:" + file).build().close(); // migrates
        List<String> triggers = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'skiplock_jobs'")) {
            while (rows.next()) {
                triggers.add(rows.getString(1));
            }
        }
        assertThat(triggers).filteredOn(sql -> sql.contains("AFTER UPDATE"))
                .as("update triggers of skiplock_jobs fire on the marker (status) or on progress only")
                .allSatisfy(sql -> assertThat(sql).containsAnyOf("AFTER UPDATE OF bookkept_by_trigger ON",
                        "AFTER UPDATE OF progress ON"))
                // status events, dependents, finishes, counts; and the events read from rows kept as rows (0018)
                .filteredOn(sql -> sql.contains("AFTER UPDATE OF bookkept_by_trigger")).hasSize(5);
        List<String> statusUpdates = triggers.stream().flatMap(sql -> UPDATES_JOBS.splitAsStream(sql).skip(1))
                .filter(update -> SETS_STATUS.matcher(update).find()).toList();
        assertThat(statusUpdates).as("the status changes of the triggers (the release and failure of dependents)")
                .hasSize(2).allSatisfy(update -> assertThat(update).contains(MARKER));
    }

    private static boolean changesStatus(String sql) {
        return UPDATES_JOBS.splitAsStream(sql).skip(1).anyMatch(part -> SETS_STATUS.matcher(part).find());
    }
}
