package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md points at the code: every class (and {@code Class.method}), package, statement or
 * column name, SQL file and path it quotes in backticks exists in the tree. A rename that forgets
 * the page fails here.
 */
class ArchitectureDocTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");
    private static final Pattern CLASS_REF = Pattern.compile("([A-Z][a-z][A-Za-z0-9]*)(?:\\.([a-z][A-Za-z0-9]*)\\*?(?:\\(\\))?)?");
    private static final Pattern SNAKE_NAME = Pattern.compile("[a-z]+(?:_[a-z]+)+");
    private static final Pattern SQL_FILE = Pattern.compile("[a-z]+\\.sql");
    private static final Pattern PACKAGE = Pattern.compile("dev\\.skiplock(?:\\.[a-z]+)*");
    private static final Pattern TYPE_DECLARATION = Pattern.compile("\\b(?:class|record|interface|enum)\\s+([A-Z]\\w*)");

    @Test
    void everyNameArchitectureMdQuotesExistsInTheTree() throws IOException {
        Map<String, List<Path>> typeFiles = declaredTypes();
        String sql = allText(".sql");
        List<String> missing = new ArrayList<>();
        // fenced blocks (the state diagram) hold no quoted names, and their ``` would pair the rest wrongly
        String page = Files.readString(ROOT.resolve("ARCHITECTURE.md")).replaceAll("(?s)```.*?```", "");
        Matcher quoted = QUOTED.matcher(page);
        int checked = 0;
        while (quoted.find()) {
            String name = quoted.group(1);
            checked++;
            Matcher classRef = CLASS_REF.matcher(name);
            if (classRef.matches()) {
                List<Path> files = typeFiles.get(classRef.group(1));
                if (files == null) {
                    missing.add(name + " (no such class)");
                } else if (classRef.group(2) != null && files.stream().noneMatch(file -> contains(file, classRef.group(2)))) {
                    missing.add(name + " (no such member)");
                }
            } else if (SNAKE_NAME.matcher(name).matches()) {
                if (!Pattern.compile("\\b" + name + "\\b").matcher(sql).find()) {
                    missing.add(name + " (in no SQL file)");
                }
            } else if (SQL_FILE.matcher(name).matches()) {
                if (!sqlFileExists(name)) {
                    missing.add(name + " (no such SQL file)");
                }
            } else if (PACKAGE.matcher(name).matches()) {
                if (!packageExists(name)) {
                    missing.add(name + " (no such package)");
                }
            } else if (name.matches("[\\w.-]+(/[\\w.-]+)+") && !Files.exists(ROOT.resolve(name))) {
                missing.add(name + " (no such path)");
            }
        }
        assertThat(checked).as("quoted names found").isGreaterThan(100);
        assertThat(missing).as("names ARCHITECTURE.md quotes that the tree lacks").isEmpty();
    }

    private static Map<String, List<Path>> declaredTypes() throws IOException {
        Map<String, List<Path>> types = new HashMap<>();
        for (Path file : sources(".java")) {
            Matcher declaration = TYPE_DECLARATION.matcher(Files.readString(file));
            while (declaration.find()) {
                types.computeIfAbsent(declaration.group(1), key -> new ArrayList<>()).add(file);
            }
        }
        return types;
    }

    private static boolean contains(Path file, String member) {
        try {
            return Pattern.compile("\\b" + member).matcher(Files.readString(file)).find();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean sqlFileExists(String name) throws IOException {
        return sources(".sql").stream().anyMatch(file -> file.getFileName().toString().equals(name));
    }

    private static boolean packageExists(String name) throws IOException {
        String directory = name.replace('.', '/');
        try (Stream<Path> modules = Files.list(ROOT)) {
            return modules.anyMatch(module -> Files.isDirectory(module.resolve("src/main/java").resolve(directory)));
        }
    }

    private static String allText(String suffix) throws IOException {
        StringBuilder text = new StringBuilder();
        for (Path file : sources(suffix)) {
            text.append(Files.readString(file)).append('\n');
        }
        return text.toString();
    }

    /** Files of the modules' {@code src} trees (not build output) ending in {@code suffix}. */
    private static List<Path> sources(String suffix) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path src : modules.map(module -> module.resolve("src")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> walk = Files.walk(src)) {
                    walk.filter(file -> file.toString().endsWith(suffix)).forEach(files::add);
                }
            }
        }
        return files;
    }
}
