package dev.skiplock.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tokens file of {@code serve}: one {@code <tenant> <sha256-hex of the token>} per line; {@code #} comments. */
final class TokensFile {
    private TokensFile() {
    }

    static Map<String, String> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("--tokens: cannot read " + file + ": " + e.getMessage());
        }
        Map<String, String> tenantByHash = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            if (parts.length != 2 || !parts[1].matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("--tokens: line " + (i + 1) + " of " + file
                        + " must be '<tenant> <sha256-hex>'");
            }
            String earlier = tenantByHash.putIfAbsent(parts[1].toLowerCase(java.util.Locale.ROOT), parts[0]);
            if (earlier != null) { // the later line would win: one tenant's token silently another's, or admin
                throw new IllegalArgumentException("--tokens: line " + (i + 1) + " of " + file + " repeats the hash of"
                        + " an earlier line (tenant " + earlier + "); a token maps to one tenant");
            }
        }
        return tenantByHash;
    }
}
