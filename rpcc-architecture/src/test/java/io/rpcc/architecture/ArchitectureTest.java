package io.rpcc.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The structural rules over the production classes of every rpcc module: no internal type in a
 * public signature, API classes reach the implementation only through the facades, and no cycles
 * among internal packages.
 */
class ArchitectureTest {
    private static JavaClasses rpcc;

    @BeforeAll
    static void importClasses() {
        rpcc = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.rpcc");
    }

    @Test
    void theImportSeesEveryModule() {
        for (String c : new String[] {"io.rpcc.core.NodeBuilder", "io.rpcc.server.RpccServer",
                "io.rpcc.client.RpccClient", "io.rpcc.repository.FileSystemChainingFunctionRepository", "io.rpcc.testkit.WanCluster",
                "io.rpcc.node.RpccNode", "io.rpcc.spring.boot.autoconfigure.RpccAutoConfiguration",
                "io.rpcc.discovery.DnsNameResolver"}) {
            if (!rpcc.contain(c)) {
                throw new AssertionError(c + " was not imported: the rules below would check nothing");
            }
        }
    }

    @Test
    void noInternalTypeInPublicSignatures() {
        ArchitectureRules.noInternalTypeInPublicSignatures("io.rpcc").check(rpcc);
    }

    @Test
    void apiReachesInternalsOnlyThroughFacades() {
        ArchitectureRules.apiReachesInternalsOnlyThroughFacades("io.rpcc").check(rpcc);
    }

    @Test
    void internalPackagesAreFreeOfCycles() {
        ArchitectureRules.internalPackagesAreFreeOfCycles("io.rpcc").check(rpcc);
    }
}
