package dev.skiplock.conformance;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layers of skiplock-core, as ARCHITECTURE.md draws them: the driver SPI knows nothing of the
 * internals; below the engine come the store, and below the store the SQL loader; the engine knows
 * nothing of the server or the CLI; the internal packages form no cycle. Main classes only: a
 * test may reach across layers.
 */
@AnalyzeClasses(packages = "dev.skiplock", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule spiDependsOnNoInternals = noClasses().that().resideInAPackage("dev.skiplock.spi..")
            .should().dependOnClassesThat().resideInAPackage("dev.skiplock.internal..")
            .because("a driver implements the SPI without reaching into the engine or the stores");

    @ArchTest
    static final ArchRule sqlDependsOnNeitherEngineNorStore = noClasses()
            .that().resideInAPackage("dev.skiplock.internal.sql..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("dev.skiplock.internal.engine..", "dev.skiplock.internal.store..")
            .because("the SQL loader only loads and binds named statements");

    @ArchTest
    static final ArchRule storeDoesNotDependOnEngine = noClasses().that().resideInAPackage("dev.skiplock.internal.store..")
            .should().dependOnClassesThat().resideInAPackage("dev.skiplock.internal.engine..")
            .because("the stores run statements; the engine decides when");

    @ArchTest
    static final ArchRule engineDependsOnNeitherServerNorCli = noClasses()
            .that().resideInAPackage("dev.skiplock.internal.engine..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.skiplock.server..", "dev.skiplock.cli..")
            .because("the core has no HTTP and no command line");

    @ArchTest
    static final ArchRule internalPackagesFormNoCycle = slices().matching("dev.skiplock.internal.(*)..")
            .should().beFreeOfCycles();
}
