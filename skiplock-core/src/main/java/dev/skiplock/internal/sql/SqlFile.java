package dev.skiplock.internal.sql;

import dev.skiplock.SkiplockException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code <table>.sql} resource of named statements: each starts with a line {@code -- name: x}
 * and runs to the next such line. Comments after the name line document the statement.
 */
public final class SqlFile {
    private static final String NAME_PREFIX = "-- name:";

    private final String resource;
    private final Map<String, NamedStatement> statements;

    private SqlFile(String resource, Map<String, NamedStatement> statements) {
        this.resource = resource;
        this.statements = Collections.unmodifiableMap(statements);
    }

    public static SqlFile load(String resource) {
        return parse(resource, readResource(resource));
    }

    static SqlFile parse(String resource, String text) {
        Map<String, NamedStatement> statements = new LinkedHashMap<>();
        String currentName = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.startsWith(NAME_PREFIX)) {
                addStatement(resource, statements, currentName, body);
                currentName = line.substring(NAME_PREFIX.length()).strip();
                body.setLength(0);
            } else if (currentName != null) {
                body.append(line).append('\n');
            }
        }
        addStatement(resource, statements, currentName, body);
        return new SqlFile(resource, statements);
    }

    private static void addStatement(String resource, Map<String, NamedStatement> statements, String name,
            StringBuilder body) {
        if (name == null) {
            return;
        }
        if (statements.put(name, NamedStatement.parse(name, body.toString())) != null) {
            throw new SkiplockException(resource + ": statement '" + name + "' is defined twice");
        }
    }

    /** The statement named {@code name}; a missing one is a packaging bug and fails loudly. */
    public NamedStatement get(String name) {
        NamedStatement statement = statements.get(name);
        if (statement == null) {
            throw new SkiplockException(resource + ": no statement named '" + name + "'");
        }
        return statement;
    }

    public Map<String, NamedStatement> statements() {
        return statements;
    }

    public static String readResource(String resource) {
        try (InputStream in = SqlFile.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new SkiplockException("missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SkiplockException("cannot read resource " + resource, e);
        }
    }
}
