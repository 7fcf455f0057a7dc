package dev.skiplock.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.SkiplockException;
import org.junit.jupiter.api.Test;

class NamedStatementTest {

    @Test
    void replacesParametersInOrderAndKeepsRepeats() {
        NamedStatement statement = NamedStatement.parse("s",
                "SELECT * FROM t WHERE a = :alpha AND (b = :beta OR :alpha IS NULL)");
        assertThat(statement.jdbcSql()).isEqualTo("SELECT * FROM t WHERE a = ? AND (b = ? OR ? IS NULL)");
        assertThat(statement.parameters()).containsExactly("alpha", "beta", "alpha");
    }

    @Test
    void leavesCastsLiteralsQuotedNamesAndCommentsAlone() {
        NamedStatement statement = NamedStatement.parse("s", """
                -- a comment with :not_a_param
                SELECT '10:30' AS "weird:name", x::text, CAST(:value AS jsonb)
                """);
        assertThat(statement.jdbcSql()).isEqualTo("SELECT '10:30' AS \"weird:name\", x::text, CAST(? AS jsonb)");
        assertThat(statement.parameters()).containsExactly("value");
    }

    @Test
    void aPlanPerCallLineMarksTheStatement() {
        assertThat(NamedStatement.parse("s", "-- why\n-- plan: per call\nSELECT :a").planPerCall()).isTrue();
        assertThat(NamedStatement.parse("s", "-- plan: cached\nSELECT :a").planPerCall()).isFalse();
        assertThat(NamedStatement.parse("s", "SELECT '-- plan: per call'").planPerCall()).isFalse();
    }

    @Test
    void sqlFileSplitsStatementsByNameLine() {
        SqlFile file = SqlFile.parse("test.sql", """
                -- name: first
                -- why it exists
                SELECT :a

                -- name: second
                UPDATE t SET x = :b
                """);
        assertThat(file.statements()).containsOnlyKeys("first", "second");
        assertThat(file.get("first").jdbcSql()).isEqualTo("SELECT ?");
        assertThat(file.get("second").parameters()).containsExactly("b");
        assertThatThrownBy(() -> file.get("third")).isInstanceOf(SkiplockException.class)
                .hasMessageContaining("test.sql").hasMessageContaining("third");
    }

    @Test
    void sqlFileRejectsADuplicateName() {
        assertThatThrownBy(() -> SqlFile.parse("dup.sql", "-- name: a\nSELECT 1\n-- name: a\nSELECT 2\n"))
                .isInstanceOf(SkiplockException.class).hasMessageContaining("defined twice");
    }
}
