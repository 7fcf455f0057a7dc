package dev.skiplock.conformance;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The server, the CLI, the drivers and skiplock-testing are built on what skiplock-core publishes: its API
 * ({@code dev.skiplock}) and, for drivers, the SPI ({@code dev.skiplock.spi}); never its internals,
 * which may change in any release. Main classes only: tests may reach in on purpose.
 */
@AnalyzeClasses(packages = {"dev.skiplock.server", "dev.skiplock.cli", "dev.skiplock.postgres", "dev.skiplock.sqlite",
        "dev.skiplock.testing"},
        importOptions = ImportOption.DoNotIncludeTests.class)
class PublicApiOnlyTest {
    @ArchTest
    static final ArchRule modulesOutsideCoreUseItsPublicApiOnly = noClasses()
            .that().resideInAnyPackage("dev.skiplock.server..", "dev.skiplock.cli..", "dev.skiplock.postgres..",
                    "dev.skiplock.sqlite..", "dev.skiplock.testing..")
            .should().dependOnClassesThat().resideInAPackage("dev.skiplock.internal..")
            .because("only skiplock-core may use dev.skiplock.internal (issue #11); use the public API or own plumbing");
}
