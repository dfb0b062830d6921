package io.rpcc.maven;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.core.ChainingFunction;
import java.net.URL;
import org.junit.jupiter.api.Test;

class ProjectClassLoaderTest {
    @Test
    void rpccComesFromThePluginTheRestFromTheProjectNothingFromMaven() throws Exception {
        try (ProjectClassLoader loader = new ProjectClassLoader(new URL[0], ProjectClassLoaderTest.class.getClassLoader())) {
            assertSame(ChainingFunction.class, loader.loadClass(ChainingFunction.class.getName()));
            assertNotNull(loader.getResource("io/rpcc/core/ChainingFunction.class"));
            assertEquals(String.class, loader.loadClass("java.lang.String"));
            // Maven's own classes (here on the test class path) are not the project's
            assertThrows(ClassNotFoundException.class, () -> loader.loadClass("org.apache.maven.plugin.AbstractMojo"));
            assertNull(loader.getResource("org/apache/maven/plugin/AbstractMojo.class"));
            // nor is this plugin
            assertThrows(ClassNotFoundException.class, () -> loader.loadClass(CheckFunctionsMojo.class.getName()));
        }
    }
}
