package dev.skiplock.testing;

import dev.skiplock.JobClient;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import java.util.Set;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstantiationAwareExtension.ExtensionContextScope;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link SkiplockTest} (or {@code @ExtendWith(SkiplockExtension.class)},
 * which means PostgreSQL, one database per class): creates the test's {@link SkiplockTestDatabase},
 * resolves the parameters {@link SkiplockTest} lists, and drops the database after the class or the
 * test. Instances you build from an injected builder are yours to close (try-with-resources).
 */
public final class SkiplockExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback,
        ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SkiplockExtension.class);
    private static final String CLASS_DATABASE = "class-database";
    private static final String TEST_DATABASE = "test-database";
    private static final Set<Class<?>> RESOLVED = Set.of(SkiplockTestDatabase.class, Skiplock.Builder.class,
            SkiplockClient.class, JobClient.class, TestClock.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        if (settings(context).scope() == SkiplockTest.Scope.CLASS) {
            classDatabase(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close(context, TEST_DATABASE);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close(context, CLASS_DATABASE + context.getUniqueId());
    }

    /**
     * A constructor's parameters (one instance per test, JUnit's default) resolve in the test's own
     * context: the TestClock a constructor hands to the code under test is the one the test gets and
     * advances. Resolved in the class's context, it was one clock for every test of the class, moved
     * by the tests before, and not the test's.
     */
    @Override
    public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
        return ExtensionContextScope.TEST_METHOD;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return RESOLVED.contains(parameter.getParameter().getType());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == TestClock.class) {
            // one per context (a test, or a class before its tests): the clock a @BeforeEach hands to
            // the code under test is the one the test advances. Keyed by the context: a store also
            // answers from its parent's, and a class's clock, moved by its earlier tests, was every test's
            return context.getStore(NAMESPACE).getOrComputeIfAbsent("clock " + context.getUniqueId(),
                    key -> new TestClock(), TestClock.class);
        }
        SkiplockTestDatabase database = database(context);
        if (type == SkiplockTestDatabase.class) {
            return database;
        }
        return type == Skiplock.Builder.class ? database.builder() : database.client();
    }

    private static SkiplockTestDatabase database(ExtensionContext context) {
        SkiplockTest settings = settings(context);
        if (settings.scope() == SkiplockTest.Scope.CLASS) {
            return classDatabase(context);
        }
        if (context.getTestMethod().isEmpty()) {
            throw new ParameterResolutionException("a Skiplock database per test (scope TEST) is injected into tests,"
                    + " @BeforeEach methods and the constructors of a class with one instance per test only,"
                    + " not @BeforeAll");
        }
        return context.getStore(NAMESPACE).getOrComputeIfAbsent(TEST_DATABASE,
                key -> SkiplockTestDatabase.create(settings.database()), SkiplockTestDatabase.class);
    }

    /**
     * The database of the test class {@code context} belongs to, created at its first use: with one
     * test instance per class, JUnit builds the instance (its constructor's parameters) before
     * {@code beforeAll}. Kept in the class's own store under the class's id (a {@code @Nested}
     * class's store also sees the enclosing class's entries), which {@code afterAll} empties.
     */
    private static SkiplockTestDatabase classDatabase(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        SkiplockTest.Database kind = settings(context).database();
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(CLASS_DATABASE + classContext.getUniqueId(),
                key -> SkiplockTestDatabase.create(kind), SkiplockTestDatabase.class);
    }

    /** The {@link SkiplockTest} of the test's class or, for a {@code @Nested} class, of the nearest class around it. */
    private static SkiplockTest settings(ExtensionContext context) {
        for (Class<?> type = context.getRequiredTestClass(); type != null;
                type = java.lang.reflect.Modifier.isStatic(type.getModifiers()) ? null : type.getEnclosingClass()) {
            java.util.Optional<SkiplockTest> found = AnnotationSupport.findAnnotation(type, SkiplockTest.class);
            if (found.isPresent()) {
                return found.get();
            }
        }
        return Defaults.class.getAnnotation(SkiplockTest.class);
    }

    private static void close(ExtensionContext context, String key) {
        SkiplockTestDatabase database = context.getStore(NAMESPACE).remove(key, SkiplockTestDatabase.class);
        if (database != null) {
            database.close();
        }
    }

    /** Carries the annotation's defaults for a class registered with {@code @ExtendWith} alone. */
    @SkiplockTest
    private static final class Defaults {
    }
}
