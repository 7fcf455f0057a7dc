package dev.skiplock.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Command runs are their user's alone: each run's output, step, pid and exit files are in a
 * directory only that user may enter, in a run directory no other user owns or may change entries
 * of. The default run directory is in the shared /tmp (command runner reviewer: every local user
 * could read the runs, and one who created the directory first could replace them).
 */
class RunDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void aMissingRunDirectoryIsMadeForItsUserAlone() throws Exception {
        Path runs = dir.resolve("skiplock-runs");

        SkiplockServer.commandRunner(runs);

        assertThat(Files.getPosixFilePermissions(runs)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void eachRunIsItsUsersAloneInARunDirectoryLeftAsItWas() throws Exception {
        Path runs = Files.createDirectory(dir.resolve("skiplock-runs"));
        Files.setPosixFilePermissions(runs, PosixFilePermissions.fromString("rwxr-xr-x")); // as earlier versions left it
        SkiplockServer.commandRunner(runs);
        CommandRun run = CommandRun.of(runs, UUID.randomUUID(), UUID.randomUUID());

        Process process = run.start(List.of("true"), Map.of("PATH", System.getenv("PATH")), null,
                SkiplockServer.DEFAULT_MAX_OUTPUT_BYTES, () -> { });
        process.waitFor();

        assertThat(Files.getPosixFilePermissions(run.stdout().getParent()))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(runs)).isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void aSharedDirectoryWithTheStickyBitIsTakenAndLeftAsItIs() throws Exception {
        Path runs = Files.createDirectory(dir.resolve("shared"));
        chmod("1777", runs); // as /tmp is

        SkiplockServer.commandRunner(runs);

        assertThat(Files.getAttribute(runs, "unix:mode")).isEqualTo(041777);
    }

    @Test
    void aRunDirectoryOthersMayWriteToWithoutTheStickyBitIsRefused() throws Exception {
        Path runs = Files.createDirectory(dir.resolve("skiplock-runs"));
        Files.setPosixFilePermissions(runs, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThatThrownBy(() -> SkiplockServer.commandRunner(runs)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run directory " + runs + " is writable by other users without the sticky bit");
    }

    @Test
    void aSymbolicLinkAsTheRunDirectoryIsRefused() throws Exception {
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Path runs = Files.createSymbolicLink(dir.resolve("skiplock-runs"), elsewhere);

        assertThatThrownBy(() -> SkiplockServer.commandRunner(runs)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run directory " + runs).hasMessageContaining("not a directory");
    }

    @Test
    void anotherUsersRunDirectoryIsRefused() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "giving a directory to another user needs root (CI runs as root)");
        Path runs = Files.createDirectory(dir.resolve("skiplock-runs"));
        Files.setOwner(runs, FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));

        assertThatThrownBy(() -> SkiplockServer.commandRunner(runs)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run directory " + runs + " belongs to nobody");
    }

    private static void chmod(String mode, Path path) throws Exception {
        assertThat(new ProcessBuilder("chmod", mode, path.toString()).start().waitFor()).isZero();
    }
}
