package io.rpcc.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.OutboundPolicy;
import io.rpcc.core.SocketTransport;
import io.rpcc.core.SandboxLimits;
import io.rpcc.node.internal.ConfigException;
import io.rpcc.node.internal.ConfigKey;
import io.rpcc.node.internal.ConfigValues;
import io.rpcc.node.internal.NodeConfig;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The standalone node's configuration: defaults, file and environment, and a clear error for every bad value. */
class NodeConfigTest {
    @TempDir
    Path dir;

    private static NodeConfig config(String... keysAndValues) {
        Map<String, String> map = new HashMap<>();
        map.put("rpcc.name", "n1");
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return new NodeConfig(ConfigValues.of(map, "test.properties"));
    }

    @Test
    void defaultsMatchTheContractAndTheBuilders() {
        NodeConfig c = config();
        assertEquals("n1", c.name());
        assertEquals(7300, c.port());
        assertEquals("0.0.0.0", c.bind());
        assertEquals(7301, c.healthPort());
        assertEquals(Duration.ofSeconds(10), c.shutdownGrace());
        assertEquals(SandboxLimits.DEFAULT, c.sandbox());
        assertEquals(NodeBuilder.DEFAULT_MAX_FRAME_SIZE, c.maxFrameSize());
        assertEquals(NodeBuilder.DEFAULT_IDLE_TIMEOUT, c.idleTimeout());
        assertEquals(Path.of("services"), c.servicesPath());
        assertNull(c.repositoryDirectory());
        assertEquals("info", c.logLevel());
        assertTrue(!c.advertisedHost().isEmpty() && !c.advertisedHost().equals("0.0.0.0"), c.advertisedHost());
    }

    @Test
    void valuesAreParsedWithTheirUnits() {
        NodeConfig c = config("rpcc.bind", "127.0.0.1", "rpcc.sandbox.cpu-time", "50ms", "rpcc.sandbox.memory", "8MiB",
                "rpcc.sandbox.wall-time", "PT3S", "rpcc.limits.max-frame-size", "1024KiB", "rpcc.timeouts.idle", "0",
                "rpcc.shutdown.grace", "2m", "rpcc.repository.enabled", "TRUE", "rpcc.repository.directory", "store",
                "rpcc.log.level", "WARN");
        assertEquals("127.0.0.1", c.advertisedHost(), "the bind host is the default advertised host");
        assertEquals(new SandboxLimits(Duration.ofMillis(50), 8L << 20, Duration.ofSeconds(3)), c.sandbox());
        assertEquals(1 << 20, c.maxFrameSize());
        assertEquals(Duration.ZERO, c.idleTimeout());
        assertEquals(Duration.ofMinutes(2), c.shutdownGrace());
        assertEquals(Path.of("store"), c.repositoryDirectory());
        assertEquals("warn", c.logLevel());
        assertNull(config("rpcc.sandbox.enabled", "false").sandbox());
    }

    @Test
    void thePolicyAllowsListedServicesOnlyToListedVerifiedOriginators() {
        io.rpcc.server.AllowListPolicy p = config("rpcc.policy.allow", " charge:shop, charge:admin ,refund:shop",
                "rpcc.policy.require-authenticated-originator", "false").policy();
        assertEquals(java.util.Map.of("charge", java.util.Set.of("shop", "admin"), "refund", java.util.Set.of("shop")),
                p.allowed());
        assertTrue(p.decide("charge", new io.rpcc.core.ChainCaller("admin", true, "node:a", null)).allowed());
        assertTrue(!p.decide("charge", new io.rpcc.core.ChainCaller("admin", false, "address:1.2.3.4", null)).allowed(),
                "a claimed name is not enough");
        assertTrue(!p.decide("refund", new io.rpcc.core.ChainCaller("admin", true, "node:a", null)).allowed());
        assertTrue(p.decide("other", new io.rpcc.core.ChainCaller("anyone", false, "address:1.2.3.4", null)).allowed());
        assertTrue(!config("rpcc.policy.require-authenticated-originator", "true").policy()
                .decide("other", new io.rpcc.core.ChainCaller("anyone", false, "address:1.2.3.4", null)).allowed());
        assertTrue(config().policy().allowed().isEmpty(), "allows everything by default");
        assertThrows(ConfigException.class, () -> config("rpcc.policy.allow", "charge"));
    }

    @Test
    void peersResolveAndTheNodeResolvesItself() {
        NodeConfig c = config("rpcc.peers", " a=127.0.0.1:7400 , b=[::1]:7401,,");
        assertEquals(new InetSocketAddress("127.0.0.1", 7400), c.peers().resolve("a").orElseThrow());
        assertEquals(new InetSocketAddress("::1", 7401), c.peers().resolve("b").orElseThrow());
        assertTrue(c.peers().resolve("n1").isEmpty(), "not before it starts");
        c.peers().registerSelf("n1", new InetSocketAddress("127.0.0.1", 7300));
        assertEquals(7300, c.peers().resolve("n1").orElseThrow().getPort());
        assertTrue(c.peers().resolve("c").isEmpty());
    }

    @Test
    void theEnvironmentOverridesTheFile() throws Exception {
        Path file = Files.writeString(dir.resolve("node.properties"), """
                rpcc.name = from-file
                rpcc.port = 7400
                rpcc.limits.max-frame-size = 2MiB
                """);
        List<String> warnings = new ArrayList<>();
        ConfigValues values = ConfigValues.load(new String[] {"--config", file.toString()},
                Map.of("RPCC_PORT", "7500", "RPCC_LIMITS_MAX_HOPS", "9", "RPCC_TYPO", "x", "HOME", "/root"), warnings::add);
        NodeConfig c = new NodeConfig(values);
        assertEquals("from-file", c.name());
        assertEquals(7500, c.port());
        assertEquals(2 << 20, c.maxFrameSize());
        assertEquals(List.of("rpcc node: ignoring environment variable RPCC_TYPO: it names no configuration key"), warnings);
        assertEquals(7400, new NodeConfig(ConfigValues.load(new String[] {"--config=" + file}, Map.of(), w -> { })).port());
    }

    @Test
    void everyKeyHasTheEnvironmentVariableOfTheContract() {
        assertEquals("RPCC_NAME", ConfigKey.NAME.environmentVariable());
        assertEquals("RPCC_ADVERTISED_HOST", ConfigKey.ADVERTISED_HOST.environmentVariable());
        assertEquals("RPCC_LIMITS_MAX_INBOUND_CONNECTIONS_PER_ADDRESS",
                ConfigKey.MAX_INBOUND_CONNECTIONS_PER_ADDRESS.environmentVariable());
        assertEquals(ConfigKey.values().length, Stream.of(ConfigKey.values()).map(ConfigKey::environmentVariable).distinct().count());
        for (ConfigKey k : ConfigKey.values()) {
            assertTrue(k.key().matches("rpcc\\.[a-z.-]+"), k.key());
        }
    }

    /** key (or argument), value, and what the message must say. */
    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of("rpcc.port", "abc", "an integer from 0 to 65535"),
                Arguments.of("rpcc.port", "70000", "an integer from 0 to 65535"),
                Arguments.of("rpcc.health.port", "-1", "an integer from 0 to 65535"),
                Arguments.of("rpcc.health.port", "7300", "a port other than rpcc.port"),
                Arguments.of("rpcc.bind", "no-such-host.invalid", "a local address to listen on"),
                Arguments.of("rpcc.repository.enabled", "yes", "true or false"),
                Arguments.of("rpcc.proxy.enabled", "1", "true or false"),
                Arguments.of("rpcc.proxy.node", "stranger", "a node listed in rpcc.peers"),
                Arguments.of("rpcc.shutdown.grace", "10 sec", "a duration such as 300ms"),
                Arguments.of("rpcc.timeouts.connect", "0", "more than 0"),
                Arguments.of("rpcc.timeouts.handshake", "-5s", "a duration"),
                Arguments.of("rpcc.sandbox.cpu-time", "fast", "a duration"),
                Arguments.of("rpcc.sandbox.memory", "32MB", "a size from 1 to"),
                Arguments.of("rpcc.sandbox.memory", "0", "a size from 1 to"),
                Arguments.of("rpcc.sandbox.enabled", "maybe", "true or false"),
                Arguments.of("rpcc.limits.max-frame-size", "100", "a size from 1024 to 2147483647 bytes"),
                Arguments.of("rpcc.limits.max-frame-size", "4GiB", "a size from 1024 to 2147483647 bytes"),
                Arguments.of("rpcc.limits.max-hops", "0", "an integer from 1 to"),
                Arguments.of("rpcc.limits.max-total-queued-write-bytes", "-1", "a size from 1 to"),
                Arguments.of("rpcc.limits.max-bad-frames-per-connection", "0", "an integer from 1 to"),
                Arguments.of("rpcc.limits.max-value-depth", "deep", "an integer from 1 to"),
                Arguments.of("rpcc.limits.max-node-name-length", "1", "a name of at most 1 characters"),
                Arguments.of("rpcc.peers", "inventory", "'inventory' is not name=host:port"),
                Arguments.of("rpcc.peers", "inventory=10.0.0.5", "'inventory=10.0.0.5' is not name=host:port"),
                Arguments.of("rpcc.peers", "a=h:0", "has no port from 1 to 65535"),
                Arguments.of("rpcc.peers", "a=h:1,a=h:2", "'a' appears twice"),
                Arguments.of("rpcc.services.path", "no/such/dir", "a directory of service jars"),
                Arguments.of("rpcc.log.level", "loud", "one of trace, debug, info, warn, error, off"),
                Arguments.of("rpcc.streams.buffer-bytes", "100KiB", "a size from 262144 to"),
                Arguments.of("rpcc.streams.window-bytes", "4GiB", "a size from 262144 to 2147483647 bytes"),
                Arguments.of("rpcc.streams.chunk-bytes", "0", "a size from 1 to"),
                Arguments.of("rpcc.streams.max-per-connection", "0", "an integer from 1 to"),
                Arguments.of("rpcc.streams.idle-timeout", "0", "more than 0"),
                Arguments.of("rpcc.functions.java.isolation", "sometimes", "in-process, process or by-trust"),
                Arguments.of("rpcc.functions.java.runners", "0", "an integer from 1 to"),
                Arguments.of("rpcc.functions.java.runner-heap", "1MiB", "rpcc.functions.java.runner-heap"),
                Arguments.of("rpcc.tls.certificate", "node.pem", "rpcc.tls.private-key is not set"),
                Arguments.of("rpcc.prot", "7300", "unknown key rpcc.prot"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badValues")
    void aBadValueNamesTheKeyTheValueAndWhatWasExpected(String key, String value, String expected) {
        ConfigException e = assertThrows(ConfigException.class, () -> config(key, value));
        String m = e.getMessage();
        assertTrue(m.contains(expected), m);
        assertTrue(m.contains("expected"), m);
        if (!m.contains("is not set") && !m.contains("unknown key")) {
            assertTrue(m.contains(key), m);
            assertTrue(m.contains(value) || m.contains("name of at most"), m);
        }
    }

    @Test
    void theOutboundPolicyAndBoundsAreParsed() {
        NodeConfig c = config();
        assertEquals(OutboundPolicy.VOUCHED, c.outboundPolicy());
        assertEquals(NodeBuilder.DEFAULT_MAX_OUTBOUND_CONNECTIONS, c.maxOutboundConnections());
        assertEquals(NodeBuilder.DEFAULT_MAX_DIALS_IN_PROGRESS, c.maxDialsInProgress());
        c = config("rpcc.limits.outbound-policy", "ANY", "rpcc.limits.max-outbound-connections", "10",
                "rpcc.limits.max-dials-in-progress", "2");
        assertEquals(OutboundPolicy.ANY, c.outboundPolicy());
        assertEquals(10, c.maxOutboundConnections());
        assertEquals(2, c.maxDialsInProgress());
        ConfigException e = assertThrows(ConfigException.class, () -> config("rpcc.limits.outbound-policy", "open"));
        assertEquals("rpcc.limits.outbound-policy", e.key());
        assertThrows(ConfigException.class, () -> config("rpcc.limits.max-dials-in-progress", "0"));
    }

    @Test
    void theStreamSettingsAreParsedAndTheBufferDefaultsToTheBuilders() {
        assertNull(config().streamBufferBytes(), "unset: the builder's default (64 MiB or a quarter of the heap)");
        assertEquals(4 << 20, config().streamWindowBytes());
        NodeConfig c = config("rpcc.streams.buffer-bytes", "256KiB", "rpcc.streams.window-bytes", "1MiB");
        assertEquals(256L << 10, c.streamBufferBytes());
        assertEquals(1 << 20, c.streamWindowBytes());
        assertEquals(0.5, config().streamBufferShare());
        assertEquals(0.25, config("rpcc.streams.buffer-share", "0.25").streamBufferShare());
        for (String bad : List.of("0", "1.5", "half", "-0.1")) {
            assertEquals("rpcc.streams.buffer-share",
                    assertThrows(ConfigException.class, () -> config("rpcc.streams.buffer-share", bad)).key());
        }
        c.applyTo(io.rpcc.server.RpccServer.builder("n1")); // values the builder takes
        NodeConfig env = new NodeConfig(ConfigValues.load(new String[0], Map.of("RPCC_NAME", "n",
                "RPCC_STREAMS_BUFFER_BYTES", "32MiB", "RPCC_STREAMS_IDLE_TIMEOUT", "5s"), w -> {
                    throw new AssertionError("no warning expected: " + w);
                }));
        assertEquals(32L << 20, env.streamBufferBytes());
    }

    @Test
    void legacyHttpEndpointsComeFromTheFileAndTheEnvironment() throws Exception {
        Path file = dir.resolve("node.properties");
        Files.writeString(file, "rpcc.name = n\nrpcc.legacy.http.quote = POST http://pricing:8080/quotes/{sku}"
                + " result=java.util.Map timeout=2s\n");
        List<String> warnings = new ArrayList<>();
        ConfigValues values = ConfigValues.load(new String[] {"--config", file.toString()},
                Map.of("RPCC_LEGACY_HTTP_STOCK_LEVEL", "get http://inventory/stock/{sku} token-env=INVENTORY_TOKEN",
                        "INVENTORY_TOKEN", "t0k"), warnings::add);
        assertEquals(List.of(), warnings, "RPCC_LEGACY_HTTP_* variables name endpoints, not unknown keys");
        assertEquals(List.of("quote", "stock-level"), values.legacyHttp().stream().map(ConfigValues.Entry::name).toList());
        NodeConfig c = new NodeConfig(values);
        io.rpcc.server.RpccServer.Builder server = io.rpcc.server.RpccServer.builder("n");
        assertEquals(List.of("quote (POST http://pricing:8080/quotes/{sku} -> java.util.Map)",
                "stock-level (GET http://inventory/stock/{sku})"), c.legacyEndpoints().registerOn(server, getClass().getClassLoader()));
        ConfigException twice = assertThrows(ConfigException.class,
                () -> c.legacyEndpoints().registerOn(server, getClass().getClassLoader()));
        assertTrue(twice.getMessage().contains("a service function name no service jar registers"), twice.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badLegacyEndpoints")
    void aBadLegacyEndpointNamesItsKeyAndNeverTheToken(String value, String expected) {
        ConfigException e = assertThrows(ConfigException.class, () -> new NodeConfig(ConfigValues.load(new String[0],
                Map.of("RPCC_NAME", "n", "RPCC_LEGACY_HTTP_QUOTE", value, "SECRET", "s3cr3t-t0ken"), w -> { })));
        assertTrue(e.getMessage().startsWith("RPCC_LEGACY_HTTP_QUOTE = \""), e.getMessage());
        assertTrue(e.getMessage().contains("(from environment variable RPCC_LEGACY_HTTP_QUOTE)"), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(!e.getMessage().contains("s3cr3t") && !e.getMessage().contains("inline-secret"), e.getMessage());
    }

    static Stream<Arguments> badLegacyEndpoints() {
        return Stream.of(
                Arguments.of("http://pricing/quotes", "an HTTP method and a URL template first"),
                Arguments.of("POST pricing/quotes", "an absolute http:// or https:// URL template"),
                Arguments.of("POST http://pricing/quotes token=inline-secret", "'token' is none of them"),
                Arguments.of("POST http://pricing/quotes token-env=NOT_SET", "has no (or an empty) NOT_SET"),
                Arguments.of("POST http://pricing/quotes token-file=/no/such/file", "cannot be read"),
                Arguments.of("POST http://pricing/quotes timeout=soon", "timeout=<a duration"),
                Arguments.of("POST http://pricing/quotes result", "'result' has no value"));
    }

    @Test
    void theTransportIsParsed() {
        assertEquals(SocketTransport.NIO, config().transport());
        assertEquals(NodeBuilder.DEFAULT_TRANSPORT, config().transport());
        assertEquals(SocketTransport.EPOLL, config("rpcc.transport", "epoll").transport());
        assertEquals(SocketTransport.NIO, config("rpcc.transport", " NIO ").transport());
        assertEquals(SocketTransport.AUTO, config("rpcc.transport", "Auto").transport());
        ConfigException e = assertThrows(ConfigException.class, () -> config("rpcc.transport", "io_uring"));
        assertEquals("rpcc.transport", e.key());
        assertTrue(e.getMessage().contains("epoll") && e.getMessage().contains("nio"), e.getMessage());
    }

    @Test
    void anUnknownKeySuggestsTheClosestOne() {
        ConfigException e = assertThrows(ConfigException.class, () -> config("rpcc.helth.port", "1"));
        assertTrue(e.getMessage().contains("did you mean rpcc.health.port?"), e.getMessage());
    }

    @Test
    void aMissingNameSaysHowToSetIt() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new NodeConfig(ConfigValues.of(Map.of("rpcc.port", "1"), "test.properties")));
        assertEquals("rpcc.name", e.key());
        assertTrue(e.getMessage().contains("rpcc.name is not set") && e.getMessage().contains("RPCC_NAME"), e.getMessage());
    }

    @Test
    void theOriginOfAValueIsNamed() {
        ConfigException e = assertThrows(ConfigException.class, () -> new NodeConfig(
                ConfigValues.load(new String[0], Map.of("RPCC_NAME", "n", "RPCC_PORT", "x"), w -> { })));
        assertEquals("rpcc.port = \"x\" (from environment variable RPCC_PORT): expected an integer from 0 to 65535",
                e.getMessage());
    }

    @Test
    void unreadableTlsFilesAndBadPemAreNamed() throws Exception {
        ConfigException missing = assertThrows(ConfigException.class, () -> config("rpcc.tls.certificate", "a.pem",
                "rpcc.tls.private-key", "b.pem", "rpcc.tls.trusted-certificates", "c.pem"));
        assertTrue(missing.getMessage().startsWith("rpcc.tls.certificate = \"a.pem\"") && missing.getMessage().contains("cannot be read"),
                missing.getMessage());
        Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate");
        ConfigException bad = assertThrows(ConfigException.class, () -> config("rpcc.tls.certificate", junk.toString(),
                "rpcc.tls.private-key", junk.toString(), "rpcc.tls.trusted-certificates", junk.toString()));
        assertTrue(bad.getMessage().contains("PEM files rpcc can use"), bad.getMessage());
    }

    @Test
    void badCommandLinesAndFilesAreNamed() throws Exception {
        ConfigException arg = assertThrows(ConfigException.class, () -> ConfigValues.load(new String[] {"--port", "1"}, Map.of(), w -> { }));
        assertTrue(arg.getMessage().contains("'--port'") && arg.getMessage().contains("expected --config <file>"), arg.getMessage());
        ConfigException noFile = assertThrows(ConfigException.class,
                () -> ConfigValues.load(new String[] {"--config", dir.resolve("none.properties").toString()}, Map.of(), w -> { }));
        assertTrue(noFile.getMessage().contains("none.properties: no such file"), noFile.getMessage());
        Path typo = Files.writeString(dir.resolve("typo.properties"), "rpcc.name=a\nrpcc.repository.enable=true\n");
        ConfigException unknown = assertThrows(ConfigException.class,
                () -> ConfigValues.load(new String[] {"--config", typo.toString()}, Map.of(), w -> { }));
        assertTrue(unknown.getMessage().contains("unknown key rpcc.repository.enable (in " + typo + ")")
                && unknown.getMessage().contains("did you mean rpcc.repository.enabled?"), unknown.getMessage());
    }

    @Test
    void theFunctionsKnownAtStartAreTheJavaAndJavaScriptFilesOfTheirDirectory() throws Exception {
        assertTrue(config().knownFunctions().isEmpty());
        Path functions = java.nio.file.Files.createDirectory(dir.resolve("known"));
        java.nio.file.Files.writeString(functions.resolve("a.java"), "public class A {}");
        java.nio.file.Files.writeString(functions.resolve("b.js"), "(state, result) => rpcc.end(result)");
        java.nio.file.Files.writeString(functions.resolve("notes.txt"), "not a function");
        NodeConfig c = config("rpcc.functions.precompile.directory", functions.toString());
        assertEquals(List.of(io.rpcc.core.FunctionLanguage.JAVA, io.rpcc.core.FunctionLanguage.JS),
                c.knownFunctions().stream().map(io.rpcc.core.ChainingFunctionSource::language).toList());
        assertEquals("public class A {}", c.knownFunctions().get(0).source());

        ConfigException e = assertThrows(ConfigException.class,
                () -> config("rpcc.functions.precompile.directory", dir.resolve("missing").toString()));
        assertTrue(e.getMessage().contains("rpcc.functions.precompile.directory"), e.getMessage());
        assertThrows(ConfigException.class, () -> config("rpcc.functions.precompile.budget", "0"));
    }
}
