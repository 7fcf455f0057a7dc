package dev.skiplock.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The directory that holds a host's command runs (its default is in the shared {@code /tmp}). Each
 * run's output and step files hold what its command printed and saved, and its pid and exit files
 * decide what an adopter signals and records: the runs are the worker's user's alone (each run's
 * directory {@code rwx------}), in a directory that user owns and no one else can change entries
 * of. An existing directory's permissions are left as they are (it may be a shared one, such as
 * {@code /tmp} itself).
 */
final class RunDirectory {
    /** A run's directory, and the run directory when Skiplock makes it. */
    static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    /** Group or others may write: they could rename or remove another user's entries... */
    private static final int WRITABLE_BY_OTHERS = 0022;
    /** ...unless the sticky bit keeps each entry to its owner (as on /tmp). */
    private static final int STICKY = 01000;

    private RunDirectory() {
    }

    /**
     * {@code root}, made owner-only if missing; refused (an {@link IllegalStateException} naming
     * it) if it is not a directory (a symbolic link, say), belongs to another user (one who made it
     * first could read or replace the runs), or lets others replace its entries (writable by them
     * without the sticky bit).
     */
    static Path own(Path root) {
        try {
            if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(root, OWNER_ONLY);
            }
            if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException("run directory " + root + " is not a directory (a symbolic link?):"
                        + " command runs need a directory of this user's own");
            }
            int owner = (Integer) Files.getAttribute(root, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Integer self = ownUid();
            if (self != null && owner != self) {
                throw new IllegalStateException("run directory " + root + " belongs to "
                        + Files.getOwner(root, LinkOption.NOFOLLOW_LINKS).getName() + " (uid " + owner
                        + "), not to this process's user (uid " + self + "): that user could read or replace its runs");
            }
            int mode = (Integer) Files.getAttribute(root, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if ((mode & WRITABLE_BY_OTHERS) != 0 && (mode & STICKY) == 0) {
                throw new IllegalStateException("run directory " + root + " is writable by other users without"
                        + " the sticky bit (mode " + Integer.toOctalString(mode & 07777) + "): they could replace its runs");
            }
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the run directory " + root + ": " + e, e);
        }
    }

    /**
     * This process's user id: the owner of its {@code /proc} entry (a user without a name in the
     * passwd database has one too); by its name where there is no {@code /proc}; null if neither tells.
     */
    private static Integer ownUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            try {
                Path probe = Files.createTempFile("skiplock-uid-", "");
                try {
                    return (Integer) Files.getAttribute(probe, "unix:uid");
                } finally {
                    Files.delete(probe);
                }
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException unknown) {
                return null;
            }
        }
    }
}
