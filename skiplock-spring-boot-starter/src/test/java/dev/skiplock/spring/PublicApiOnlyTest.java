package dev.skiplock.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The starter is built on skiplock-core's public API, as the server and the CLI are (the conformance suite's rule). */
@AnalyzeClasses(packages = "dev.skiplock.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class PublicApiOnlyTest {
    @ArchTest
    static final ArchRule theStarterUsesThePublicApiOnly = noClasses().that().resideInAPackage("dev.skiplock.spring..")
            .should().dependOnClassesThat().resideInAPackage("dev.skiplock.internal..")
            .because("only skiplock-core may use dev.skiplock.internal (issue #11)");
}
