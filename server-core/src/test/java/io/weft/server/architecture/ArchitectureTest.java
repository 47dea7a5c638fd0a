package io.weft.server.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.weft.server.internal.Bootstrap;
import org.junit.jupiter.api.Test;

/**
 * server-core's packages are layers that follow the data flow, without cycles:
 *
 * <pre>
 * shared:   io.weft.bayeux (its own module: message, channel id, promise, error, codec)
 * public:   api  &lt;-  spi, ext                       (what applications and transports use)
 * internal: util &lt;- reply, stats &lt;- session &lt;- channel, app &lt;- history &lt;- delivery &lt;- protocol &lt;- internal
 *           (the assembly)
 * </pre>
 *
 * Each internal layer uses only those below it (and the public packages); the public packages reach the
 * implementation only through {@link Bootstrap}, whose static factories they call, and never the shared module's
 * implementation; the shipped extensions use only the API an application has.
 */
class ArchitectureTest {
    private static final String ROOT = "io.weft.server";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    @Test
    void internalLayersUseOnlyTheLayersBelowThem() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("public").definedBy(ROOT + ".api..", ROOT + ".spi..", ROOT + ".ext..")
                .layer("util").definedBy(ROOT + ".internal.util..")
                .layer("reply").definedBy(ROOT + ".internal.reply..")
                .layer("stats").definedBy(ROOT + ".internal.stats..")
                .layer("time").definedBy(ROOT + ".internal.time..")
                .layer("session").definedBy(ROOT + ".internal.session..")
                .layer("channel").definedBy(ROOT + ".internal.channel..")
                .layer("app").definedBy(ROOT + ".internal.app..")
                .layer("history").definedBy(ROOT + ".internal.history..")
                .layer("delivery").definedBy(ROOT + ".internal.delivery..")
                .layer("protocol").definedBy(ROOT + ".internal.protocol..")
                .layer("assembly").definedBy(ROOT + ".internal")
                .whereLayer("assembly").mayOnlyBeAccessedByLayers("public")
                .whereLayer("protocol").mayOnlyBeAccessedByLayers("assembly")
                .whereLayer("delivery").mayOnlyBeAccessedByLayers("protocol", "assembly")
                .whereLayer("history").mayOnlyBeAccessedByLayers("delivery", "protocol", "assembly")
                .whereLayer("app").mayOnlyBeAccessedByLayers("delivery", "protocol", "assembly")
                .whereLayer("channel").mayOnlyBeAccessedByLayers("history", "delivery", "protocol", "assembly")
                .whereLayer("session").mayOnlyBeAccessedByLayers("channel", "app", "delivery", "protocol", "assembly")
                .whereLayer("time").mayOnlyBeAccessedByLayers("assembly")
                .whereLayer("stats").mayOnlyBeAccessedByLayers("session", "protocol", "assembly")
                .whereLayer("reply").mayOnlyBeAccessedByLayers("session", "protocol", "assembly")
                .whereLayer("util").mayOnlyBeAccessedByLayers("reply", "stats", "session", "channel", "app",
                        "history", "delivery", "protocol", "assembly")
                .check(CLASSES);
    }

    @Test
    void theInternalPackagesFormNoCycle() {
        slices().matching(ROOT + ".internal.(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void thePublicPackagesReachTheImplementationOnlyThroughBootstrap() {
        noClasses().that().resideInAnyPackage(ROOT + ".api..", ROOT + ".spi..", ROOT + ".ext..")
                .should().dependOnClassesThat(resideInAPackage(ROOT + ".internal..").and(not(type(Bootstrap.class))))
                .check(CLASSES);
    }

    @Test
    void thePublicPackagesNeverNameTheSharedModulesImplementation() {
        noClasses().that().resideInAnyPackage(ROOT + ".api..", ROOT + ".spi..", ROOT + ".ext..")
                .should().dependOnClassesThat().resideInAPackage("io.weft.bayeux.internal..")
                .check(CLASSES);
    }

    @Test
    void theApiKnowsNeitherTheSpiNorTheExtensions() {
        noClasses().that().resideInAPackage(ROOT + ".api..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".spi..", ROOT + ".ext..")
                .check(CLASSES);
    }

    @Test
    void theShippedExtensionsUseOnlyWhatApplicationsHave() {
        classes().that().resideInAPackage(ROOT + ".ext..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(ROOT + ".api..", "io.weft.bayeux", "java..",
                        "org.slf4j..")
                .check(CLASSES);
    }
}
