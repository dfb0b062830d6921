package io.rpcc.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each structural rule fails on a fixture that breaks it, so {@link ArchitectureTest} can fail. */
class ArchitectureRulesTest {
    private static final String FIXTURE = "io.rpcc.architecture.fixture";
    private final JavaClasses fixture = new ClassFileImporter().importPackages(FIXTURE);

    @Test
    void anInternalTypeInAPublicSignatureIsReported() {
        EvaluationResult r = ArchitectureRules.noInternalTypeInPublicSignatures(FIXTURE).evaluate(fixture);
        List<String> details = r.getFailureReport().getDetails();
        assertEquals(1, details.size(), () -> String.join("\n", details)); // the private method and CleanApi are fine
        assertTrue(details.get(0).contains("LeakyApi: method lefts() returns internal type " + FIXTURE
                + ".internal.left.Left"), details.get(0));
    }

    @Test
    void anApiClassReachingAnInternalClassIsReported() {
        EvaluationResult r = ArchitectureRules.apiReachesInternalsOnlyThroughFacades(FIXTURE).evaluate(fixture);
        String report = String.join("\n", r.getFailureReport().getDetails());
        assertTrue(report.contains("CleanApi") && report.contains("LeakyApi"), report);
    }

    @Test
    void aCoreClassUsingTheCompilerOrAsmIsReported() {
        EvaluationResult r = ArchitectureRules.coreCarriesNoCompiler(FIXTURE + ".core").evaluate(fixture);
        String report = String.join("\n", r.getFailureReport().getDetails());
        assertTrue(report.contains("CompilingCore") && report.contains("javax.tools.ToolProvider")
                && report.contains("org.objectweb.asm.ClassWriter"), report);
        assertTrue(!ArchitectureRules.coreCarriesNoCompiler(FIXTURE + ".api").evaluate(fixture).hasViolation(),
                "a package without the compiler passes");
    }

    @Test
    void aPluginReachingAnotherModulesInternalsIsReported() {
        EvaluationResult r = ArchitectureRules.pluginUsesOnlyApiAndSpi(FIXTURE + ".plugin").evaluate(fixture);
        List<String> details = r.getFailureReport().getDetails();
        String report = String.join("\n", details);
        // OwnPart reaching internal.right is reported; Plugin using the API and its own OwnPart is not
        assertTrue(report.contains("OwnPart") && report.contains(FIXTURE + ".internal.right.Right"), report);
        assertTrue(details.stream().noneMatch(d -> d.contains("Plugin.use")), report);
    }

    @Test
    void anotherModulesInternalClassOutsideTheEngineSpiIsReported() {
        String modules = FIXTURE + ".modules.";
        EvaluationResult r = ArchitectureRules.internalsCrossModulesOnlyThroughTheEngineSpi(c -> c.getName().startsWith(modules)
                ? c.getName().substring(modules.length()).split("\\.")[0] : null).evaluate(fixture);
        List<String> details = r.getFailureReport().getDetails();
        String report = String.join("\n", details);
        // One using Kept (module two, not offered) is reported; its own Mine, and Offered (and its nested
        // Part) that module two offers, are not
        assertEquals(1, details.size(), report);
        assertTrue(report.contains(modules + "one.One (one) uses " + modules + "two.internal.Kept (two)"), report);
    }

    @Test
    void aCycleBetweenInternalPackagesIsReported() {
        EvaluationResult r = ArchitectureRules.internalPackagesAreFreeOfCycles(FIXTURE).evaluate(fixture);
        String report = String.join("\n", r.getFailureReport().getDetails());
        assertTrue(r.hasViolation(), "no cycle found");
        assertTrue(report.contains(FIXTURE + ".internal.left") && report.contains(FIXTURE + ".internal.right"), report);
    }

    @Test
    void anInternalEnumMirroringAPublicOneIsReported() {
        EvaluationResult r = ArchitectureRules.noInternalEnumMirrorsAPublicOne(FIXTURE).evaluate(fixture);
        List<String> details = r.getFailureReport().getDetails();
        String report = String.join("\n", details);
        // MirroredShade has every constant of api.Shade (and one more); Phase shares only one of them
        assertEquals(1, details.size(), report);
        assertTrue(report.contains(FIXTURE + ".internal.mirror.MirroredShade mirrors public enum " + FIXTURE
                + ".api.Shade"), report);
    }

    @Test
    void anInternalMethodOrConstructorWithMoreThanSevenParametersIsReported() {
        EvaluationResult r = ArchitectureRules.internalCodeTakesAtMostSevenParameters(FIXTURE, Set.of()).evaluate(fixture);
        List<String> details = r.getFailureReport().getDetails();
        String report = String.join("\n", details);
        // seven as written pass (the inner class's outer instance, the enum's name and ordinal and the
        // lambda's captures are the compiler's); the 8-parameter method and the 8-component record fail
        assertEquals(2, details.size(), report);
        assertTrue(report.contains("WideCalls: method tooWide() takes 8 parameters"), report);
        assertTrue(report.contains("WideCalls$TooWideRecord: constructor takes 8 parameters"), report);
        EvaluationResult exempt = ArchitectureRules.internalCodeTakesAtMostSevenParameters(FIXTURE,
                Set.of(FIXTURE + ".internal.wide.WideCalls")).evaluate(fixture);
        assertTrue(!exempt.hasViolation(), () -> String.join("\n", exempt.getFailureReport().getDetails()));
    }

    @Test
    void aPackageWithoutJavadocIsReported() throws IOException {
        // source fixtures, not compiled: documented (Javadoc), undocumented (no package-info.java),
        // commented (a package-info.java with a plain comment), empty (a package-info.java with an empty Javadoc)
        List<String> missing = ArchitectureRules.packagesWithoutJavadoc(Path.of("src/test/resources/package-info-fixture"));
        String report = String.join("\n", missing);
        assertEquals(3, missing.size(), report);
        assertTrue(missing.get(0).startsWith("commented: ") && missing.get(0).contains("has no Javadoc comment"), report);
        assertTrue(missing.get(1).startsWith("empty: ") && missing.get(1).contains("has no Javadoc comment"), report);
        assertTrue(missing.get(2).startsWith("undocumented: no package-info.java"), report);
    }

    @Test
    void aReservedNameSpelledOutsideItsHomeIsReported() throws IOException {
        // source fixtures, not compiled: kinds/Kinds.java names the kinds (and spells the reserved
        // names); dispatch/Dispatch.java compares one as a string, and mentions others in comments, a
        // text block and an escaped literal, and spells an rpcc.-prefixed name that is not reserved
        Path root = Path.of("src/test/resources/reserved-name-fixture");
        Set<String> reserved = ArchitectureRules.reservedNames(root.resolve("kinds/Kinds.java"));
        assertEquals(Set.of("rpcc.return", "rpcc.merge"), reserved);
        List<String> found = ArchitectureRules.reservedNameLiterals(root, reserved, Set.of("kinds/Kinds.java"));
        assertEquals(List.of("dispatch/Dispatch.java:14: \"rpcc.merge\""), found);
        List<String> unallowed = ArchitectureRules.reservedNameLiterals(root, reserved, Set.of());
        assertEquals(List.of("dispatch/Dispatch.java:14: \"rpcc.merge\"", "kinds/Kinds.java:5: \"rpcc.return\"",
                "kinds/Kinds.java:6: \"rpcc.merge\""), unallowed);
    }
}
