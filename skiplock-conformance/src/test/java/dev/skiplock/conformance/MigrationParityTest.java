package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.spi.Driver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

    private static List<String> shippedMigrations(Driver driver) throws IOException {
        Path dir = ROOT.resolve("skiplock-" + driver.name()).resolve("src/main/resources")
                .resolve(driver.resourceRoot()).resolve("migrations");
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".sql"))
                    .map(name -> name.substring(0, name.length() - ".sql".length())).sorted().toList();
        }
    }
}
