package io.rpcc.maven;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.rpcc.maven.fixture.ReadsAFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SandboxLocatorTest {
    private static final Path CLASSES = Path.of("target/test-classes");
    private static final String FUNCTION = ReadsAFile.class.getName();

    private static List<String> source() throws Exception {
        return Files.readAllLines(Path.of("src/test/java/io/rpcc/maven/fixture/ReadsAFile.java"));
    }

    @Test
    void theServersLineAndTheColumnOfTheNameItRefuses() throws Exception {
        String message = "chaining function " + FUNCTION + " uses java.io.File in " + FUNCTION + ".apply (line 12), "
                + "which the sandbox does not allow (rule: files)";
        assertEquals(new SandboxLocator.Position(12, 37), new SandboxLocator(CLASSES).locate(FUNCTION, message, source()));
    }

    @Test
    void withoutALineTheFirstUseInTheNamedMethodFromTheClassFile() throws Exception {
        String message = "chaining function " + FUNCTION + " uses java.io.File in " + FUNCTION + ".apply, "
                + "which the sandbox does not allow (rule: files)";
        assertEquals(new SandboxLocator.Position(12, 37), new SandboxLocator(CLASSES).locate(FUNCTION, message, source()));
    }

    @Test
    void aMemberIsFoundByItsName() throws Exception {
        String message = "chaining function " + FUNCTION + " uses java.io.File.exists in " + FUNCTION + ".apply, "
                + "which the sandbox does not allow (rule: files)";
        assertEquals(new SandboxLocator.Position(12, 48), new SandboxLocator(CLASSES).locate(FUNCTION, message, source()));
    }

    @Test
    void aClassLevelRefusalPointsAtTheDeclaration() throws Exception {
        String message = "chaining function " + FUNCTION + " uses a non-final static field n (state kept across "
                + "invocations) in " + FUNCTION + ", which the sandbox does not allow (rule: static-state)";
        assertEquals(new SandboxLocator.Position(8, 1), new SandboxLocator(CLASSES).locate(FUNCTION, message, source()));
    }

    @Test
    void nothingToPointAtInAnotherFile() {
        assertNull(new SandboxLocator(CLASSES).locate(FUNCTION, "chaining function used more than 300 ms of CPU time",
                List.of("// nothing here")));
    }
}
