package dev.skiplock.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a JUnit 5 test class with {@link SkiplockExtension}: a migrated Skiplock database, and these
 * parameters for test methods, {@code @BeforeEach} methods and the constructor (with JUnit's instance
 * per test, the test's own; with {@link Scope#CLASS}, also {@code @BeforeAll} and the constructor of
 * a {@code PER_CLASS} instance): {@link SkiplockTestDatabase}, a {@link dev.skiplock.Skiplock.Builder}
 * on it (new for each parameter, with {@link SkiplockTesting#config()}), a {@link dev.skiplock.SkiplockClient}
 * (or {@link dev.skiplock.JobClient}) on it, and a {@link TestClock} at the current time.
 *
 * <pre>{@code
 * @SkiplockTest(database = SkiplockTest.Database.SQLITE)
 * class SignupTest {
 *     @Test
 *     void welcomesNewUsers(Skiplock.Builder app) { ... }
 * }
 * }</pre>
 *
 * Inherited: an abstract test with one subclass per database runs the same tests on both.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SkiplockExtension.class)
public @interface SkiplockTest {
    /** The database the tests run on (default PostgreSQL). */
    Database database() default Database.POSTGRES;

    /** How long one database lives (default: one per test class). */
    Scope scope() default Scope.CLASS;

    /** A database Skiplock runs on. */
    enum Database {
        /**
         * A fresh schema (dropped afterwards) on the server named by the {@code SKIPLOCK_TEST_PG_URL}
         * environment variable (a JDBC URL), else on an embedded PostgreSQL started once per JVM.
         */
        POSTGRES,
        /** A new SQLite file in a temp folder (deleted afterwards); never {@code :memory:}. */
        SQLITE
    }

    /** How long one database lives. */
    enum Scope {
        /** One database for all tests of the class: they see each other's jobs. */
        CLASS,
        /** A new database for each test. */
        TEST
    }
}
