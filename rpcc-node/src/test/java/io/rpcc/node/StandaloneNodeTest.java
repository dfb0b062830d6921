package io.rpcc.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.node.internal.ConfigException;
import io.rpcc.node.internal.ConfigValues;
import io.rpcc.node.internal.HealthEndpoint;
import io.rpcc.node.internal.NodeConfig;
import io.rpcc.node.internal.StandaloneNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's parts in this JVM: the health endpoint's answers, and service classes that cannot be used. */
class StandaloneNodeTest {
    @TempDir
    Path dir;

    @Test
    void readyIs503UntilTheNodeSaysOtherwiseAndLiveIsAlways200() throws Exception {
        try (HealthEndpoint health = HealthEndpoint.start("127.0.0.1", 0);
             HttpClient http = HttpClient.newHttpClient()) {
            assertEquals(503, status(http, health, "GET", "/ready"));
            assertEquals(200, status(http, health, "GET", "/live"));
            health.ready(true);
            assertEquals(200, status(http, health, "GET", "/ready"));
            assertEquals(200, status(http, health, "HEAD", "/ready"));
            health.ready(false); // draining
            assertEquals(503, status(http, health, "GET", "/ready"));
            assertEquals(404, status(http, health, "GET", "/"));
            assertEquals(405, status(http, health, "POST", "/live"));
        }
    }

    private static int status(HttpClient http, HealthEndpoint health, String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void aServiceClassThatCannotBeUsedIsABadConfiguration() throws Exception {
        Path services = new ServiceJar().source("demo.NoDefault", """
                        package demo;
                        public class NoDefault { public NoDefault(int x) {} }
                        """)
                .source("demo.NoMethods", """
                        package demo;
                        public class NoMethods { public String hello() { return "hi"; } }
                        """)
                .writeTo(dir.resolve("services/bad.jar")).getParent();
        assertEquals("rpcc.services.classes = \"demo.NoDefault\" (from test): expected public classes with a public "
                + "no-argument constructor; demo.NoDefault has none", startFails(services, "demo.NoDefault").getMessage());
        String noMethods = startFails(services, "demo.NoMethods").getMessage();
        assertTrue(noMethods.contains("expected classes with @ServiceMethod methods (demo.NoMethods has no @ServiceMethod methods)"),
                noMethods);
        String missing = startFails(services, "demo.Nope").getMessage();
        assertTrue(missing.contains("demo.Nope cannot be loaded") && missing.contains("1 jar(s) in " + services), missing);
    }

    private ConfigException startFails(Path services, String className) {
        Map<String, String> keys = new HashMap<>(Map.of("rpcc.name", "n", "rpcc.bind", "127.0.0.1", "rpcc.port", "0",
                "rpcc.health.port", "0", "rpcc.services.path", services.toString(), "rpcc.services.classes", className));
        ConfigValues values = ConfigValues.of(keys, "test");
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try {
            return assertThrows(ConfigException.class, () -> StandaloneNode.start(values, new NodeConfig(values),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
    }
}
