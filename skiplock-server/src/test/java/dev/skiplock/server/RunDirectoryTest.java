package dev.skiplock.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command runner's run directory is its user's alone: each run's output, step, pid and exit
 * files are there, and the default directory is in the shared /tmp (command runner reviewer: every
 * local user could read them, and one who created the directory first could replace them).
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
    void aRunDirectoryOthersCouldReadIsNarrowedToItsUser() throws Exception {
        Path runs = Files.createDirectory(dir.resolve("skiplock-runs"));
        Files.setPosixFilePermissions(runs, PosixFilePermissions.fromString("rwxr-xr-x")); // as earlier versions left it

        SkiplockServer.commandRunner(runs);

        assertThat(Files.getPosixFilePermissions(runs)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
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
                "giving a directory to another user needs root");
        Path runs = Files.createDirectory(dir.resolve("skiplock-runs"));
        Files.setOwner(runs, FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));

        assertThatThrownBy(() -> SkiplockServer.commandRunner(runs)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("run directory " + runs + " belongs to nobody");
        assertThat(Files.getPosixFilePermissions(runs, LinkOption.NOFOLLOW_LINKS))
                .as("left as it was").contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ);
    }
}
