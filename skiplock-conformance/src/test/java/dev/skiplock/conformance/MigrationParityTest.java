package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.spi.Driver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Both drivers list the same migration numbers, and each lists exactly the files it ships: a
 * migration added to one dialect only, or written but not listed, fails here instead of at a
 * user's upgrade.
 */
class MigrationParityTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void bothDriversListTheSameMigrationNumbersAndEveryFileTheyShip() throws IOException {
        List<Driver> drivers = ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get).toList();
        assertThat(drivers).extracting(Driver::name).containsExactlyInAnyOrder("postgres", "sqlite");

        List<List<String>> numbers = drivers.stream()
                .map(driver -> driver.migrations().stream().map(name -> name.substring(0, 4)).toList()).toList();
        assertThat(numbers.get(0)).isEqualTo(numbers.get(1)).isSorted().doesNotHaveDuplicates();
        for (Driver driver : drivers) {
            assertThat(shippedMigrations(driver)).as("migration files of %s", driver.name())
                    .containsExactlyElementsOf(driver.migrations());
        }
    }

    /**
     * A trigger doing the same work has the same name in both dialects. SQLite keeps three row
     * triggers that write status and progress events, which PostgreSQL's statements write
     * themselves since its 0005, and two that count finishes per minute, which PostgreSQL's
     * counting triggers do in the same statement (0011), one that counts inserted jobs, which
     * PostgreSQL's enqueue statements count themselves since its 0015, and one that writes as rows
     * the events a job row carried until a statement cleared their seqs, which PostgreSQL's
     * statements write themselves (its 0012, SQLite's 0018); they are the only names SQLite has alone.
     * PostgreSQL alone has three on its folded counts, a table SQLite does not have, that keep every
     * tenant's totals (its 0023).
     */
    @Test
    void triggersThatDoTheSameWorkHaveTheSameNameInBothDialects() throws IOException {
        Set<String> postgres = triggersAfterAllMigrations("postgres");
        Set<String> sqlite = triggersAfterAllMigrations("sqlite");
        Set<String> onPostgresOwnTables = Set.of("skiplock_job_counts_folded_inserted",
                "skiplock_job_counts_folded_updated", "skiplock_job_counts_folded_deleted");
        assertThat(postgres).containsExactlyInAnyOrder("skiplock_dependency_finished", "skiplock_job_deleted",
                "skiplock_job_counted_updated", "skiplock_job_counted_deleted", "skiplock_job_counts_folded_inserted",
                "skiplock_job_counts_folded_updated", "skiplock_job_counts_folded_deleted");
        assertThat(sqlite).containsAll(postgres.stream().filter(name -> !onPostgresOwnTables.contains(name)).toList());
        assertThat(sqlite).containsExactlyInAnyOrder("skiplock_dependency_finished",
                "skiplock_job_deleted", "skiplock_job_inserted", "skiplock_job_status_changed",
                "skiplock_job_progress_changed", "skiplock_job_counted_inserted", "skiplock_job_counted_updated",
                "skiplock_job_counted_deleted", "skiplock_job_counted_finished", "skiplock_job_counted_born_finished",
                "skiplock_job_events_kept");
    }

    /** Replays CREATE TRIGGER and DROP TRIGGER of a driver's migrations, in order. */
    private static Set<String> triggersAfterAllMigrations(String driver) throws IOException {
        Pattern statement = Pattern.compile("(?i)\\b(CREATE|DROP)\\s+TRIGGER\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?(\\w+)");
        Path dir = ROOT.resolve("skiplock-" + driver).resolve("src/main/resources/dev/skiplock").resolve(driver)
                .resolve("migrations");
        Set<String> triggers = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String text = Files.readString(file).replaceAll("--[^\\n]*", "");
                Matcher matcher = statement.matcher(text);
                while (matcher.find()) {
                    if (matcher.group(1).equalsIgnoreCase("CREATE")) {
                        triggers.add(matcher.group(2));
                    } else {
                        triggers.remove(matcher.group(2));
                    }
                }
            }
        }
        return triggers;
    }

    private static List<String> shippedMigrations(Driver driver) throws IOException {
        Path dir = ROOT.resolve("skiplock-" + driver.name()).resolve("src/main/resources")
                .resolve(driver.resourceRoot()).resolve("migrations");
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".sql"))
                    .map(name -> name.substring(0, name.length() - ".sql".length())).sorted().toList();
        }
    }
}
