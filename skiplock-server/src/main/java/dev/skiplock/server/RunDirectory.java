package dev.skiplock.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/**
 * The directory that holds a host's command runs (its default is in the shared {@code /tmp}): the
 * worker's user's own, readable by no one else. Each run's output and step files hold what its
 * command printed and saved; its pid and exit files decide what an adopter signals and records, so
 * another local user who could replace them could signal this user's processes or set outcomes.
 */
final class RunDirectory {
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private RunDirectory() {
    }

    /**
     * {@code root}, created owner-only if missing, its permissions narrowed to owner-only if wider;
     * refused (an {@link IllegalStateException} naming it) if it is not a directory of this user,
     * such as one another user created first or a symbolic link.
     */
    static Path own(Path root) {
        try {
            if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(root, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            PosixFileAttributes attributes = Files.readAttributes(root, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isDirectory()) {
                throw new IllegalStateException("run directory " + root + " is not a directory (a symbolic link?):"
                        + " command runs need a directory of this user's own");
            }
            UserPrincipal self = FileSystems.getDefault().getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name"));
            if (!attributes.owner().equals(self)) {
                throw new IllegalStateException("run directory " + root + " belongs to " + attributes.owner().getName()
                        + ", not to " + self.getName() + ": that user could read or replace its command runs");
            }
            if (!attributes.permissions().equals(OWNER_ONLY)) {
                Files.setPosixFilePermissions(root, OWNER_ONLY); // umask, or made by an earlier version
            }
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the run directory " + root + ": " + e.getMessage(), e);
        }
    }
}
