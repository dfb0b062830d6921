package io.rpcc.repository;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionNotFoundException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.RepositoryUnavailableException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Upload once, fetch on first use, cache compiled, survive restarts, fail clearly. */
class RepositoryIntegrationTest {
    @TempDir
    Path dir;
    final StaticNameResolver names = new StaticNameResolver();
    final List<AutoCloseable> nodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable n : nodes) {
            n.close();
        }
    }

    RpccServer server(String name, UnaryOperator<RpccServer.Builder> config) {
        RpccServer s = config.apply(RpccServer.builder(name).resolver(names)).build().start();
        names.register(name, s.address());
        nodes.add(s);
        return s;
    }

    RepositoryService repository(String name) {
        RepositoryService service = RepositoryService.of(new FileSystemChainingFunctionRepository(dir));
        server(name, b -> RepositoryService.install(b, service));
        return service;
    }

    RpccClient client(int inlineLimit) {
        RpccClient c = RpccClient.builder().resolver(names).repository("repo").inlineFunctionLimit(inlineLimit)
                .timeout(Duration.ofSeconds(20)).build().start();
        nodes.add(c);
        return c;
    }

    /** A two-hop chaining function padded to {@code size} chars, distinct per {@code tag}. */
    static ChainingFunctionSource function(String tag, int size) {
        String padding = "// " + "pad ".repeat(Math.max(0, size / 4)) + "\n";
        return ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                %s
                public class Hop implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        if (!state.contains("second")) return NextHop.call("s2", "echo", result + "-%s", state.with("second", true));
                        return NextHop.end(result + "!");
                    }
                }
                """.formatted(padding, tag));
    }

    @Test
    void largeFunctionsAreUploadedOnceAndFetchedOncePerServer() {
        RepositoryService repo = repository("repo");
        RpccServer s1 = server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(500);
        ChainingFunctionSource big = function("big", 4000);
        for (int i = 0; i < 3; i++) {
            assertEquals("x-big!", client.runChain("s1", "echo", "x", big, ChainState.empty()).value());
        }
        assertEquals(1, repo.puts(), "uploaded once");
        assertEquals(2, repo.gets(), "fetched once by each server, then served from their caches");
        assertEquals(1, s1.stats().functionFetches());
        assertEquals(1, s1.stats().functionCacheMisses());
        assertEquals(2, s1.stats().functionCacheHits());
        assertTrue(s1.stats().functionCompileNanos() > 0);

        ChainingFunctionSource small = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Small implements ChainingFunction {
                    public NextHop apply(ChainState s, Object r) { return NextHop.end(r + "?"); }
                }
                """);
        assertTrue(small.source().length() <= 500);
        assertEquals("x?", client.runChain("s1", "echo", "x", small, ChainState.empty()).value());
        assertEquals(1, repo.puts(), "small functions travel inline");
        assertEquals(2, repo.gets());
    }

    @Test
    void evictedFunctionsAreFetchedAgain() {
        RepositoryService repo = repository("repo");
        server("s1", b -> b.functionCacheSize(1).service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource a = function("a", 1000);
        ChainingFunctionSource b = function("b", 1000);
        client.runChain("s1", "echo", "x", a, ChainState.empty());
        client.runChain("s1", "echo", "x", b, ChainState.empty()); // evicts a at s1
        long before = repo.gets();
        assertEquals("x-a!", client.runChain("s1", "echo", "x", a, ChainState.empty()).value());
        assertEquals(before + 1, repo.gets(), "s1 fetched a again; s2 still had it");
    }

    @Test
    void storedFunctionsSurviveARestartOfTheRepository() {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource f = function("persisted", 2000);
        client.runChain("s1", "echo", "x", f, ChainState.empty());
        assertEquals(1, dirFiles());

        try {
            nodes.remove(0).close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        RepositoryService restarted = repository("repo"); // a new process over the same directory
        server("s3", b -> b.service("echo", p -> p));      // a server that never compiled f
        assertEquals("x-persisted!", client.runChain("s3", "echo", "x", f, ChainState.empty()).value());
        assertEquals(0, restarted.puts(), "not uploaded again");
        assertEquals(1, restarted.gets(), "s3 fetched it from the restarted repository");
    }

    @Test
    void anUnreachableRepositoryIsATypedErrorNotAHang() throws Exception {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource f = function("down", 2000);
        client.upload(f);
        ((AutoCloseable) nodes.remove(0)).close();
        ChainException e = assertThrows(ChainException.class,
                () -> client.runChain("s1", "echo", "x", f, ChainState.empty()));
        RepositoryUnavailableException r = assertInstanceOf(RepositoryUnavailableException.class, e);
        assertEquals("s1", r.host());
        assertEquals(1, r.hop());
        assertTrue(r.remoteMessage().startsWith("cannot fetch chaining function " + f.id() + " from repository 'repo'"),
                r.remoteMessage());
    }

    @Test
    void aMissingFunctionIsATypedError() {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource neverUploaded = function("ghost", 10).asReference("repo");
        ChainingFunctionNotFoundException e = assertThrows(ChainingFunctionNotFoundException.class,
                () -> client.runChain(ChainCall.to("s1", "echo").params("x").chainingFunction(neverUploaded)));
        assertEquals("s1", e.host());
        assertEquals("repository 'repo' has no chaining function " + neverUploaded.id(), e.remoteMessage());
    }

    @Test
    void compileErrorsOfFetchedFunctionsCarryDiagnostics() {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        RpccClient client = client(10);
        ChainingFunctionSource broken = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Broken implements ChainingFunction {
                    public NextHop apply(ChainState s, Object r) { return NextHop.end(missing); }
                }
                """);
        ChainingFunctionCompileException e = assertThrows(ChainingFunctionCompileException.class,
                () -> client.runChain("s1", "echo", "x", broken, ChainState.empty()));
        assertEquals(3, e.diagnostics().get(0).line());
        assertTrue(e.diagnostics().get(0).message().contains("cannot find symbol"));
    }

    private long dirFiles() {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".src")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
