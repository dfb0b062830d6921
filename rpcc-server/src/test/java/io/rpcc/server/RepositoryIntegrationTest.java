package io.rpcc.server;

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
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.RepositoryUnavailableException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.repository.ChainingFunctionRepository;
import io.rpcc.repository.FileSystemChainingFunctionRepository;
import io.rpcc.repository.InMemoryChainingFunctionRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository end to end, on real nodes: a server serving a store ({@code builder.repository}),
 * clients uploading once, servers (and interactive clients) fetching by reference and caching, and
 * every way a fetch or an upload can go wrong ending in a typed error that names the hop and the
 * repository.
 */
class RepositoryIntegrationTest {
    @TempDir
    Path dir;
    final StaticNameResolver names = new StaticNameResolver();
    final List<AutoCloseable> nodes = new ArrayList<>();

    /** A store that counts what its repository node was asked. */
    static final class CountingRepository implements ChainingFunctionRepository {
        final ChainingFunctionRepository store;
        final AtomicLong puts = new AtomicLong();
        final AtomicLong gets = new AtomicLong();

        CountingRepository(ChainingFunctionRepository store) {
            this.store = store;
        }

        @Override
        public String put(ChainingFunctionSource source) {
            puts.incrementAndGet();
            return store.put(source);
        }

        @Override
        public Optional<ChainingFunctionSource> get(String id) {
            gets.incrementAndGet();
            return store.get(id);
        }
    }

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

    CountingRepository repository(String name) {
        CountingRepository store = new CountingRepository(new FileSystemChainingFunctionRepository(dir));
        server(name, b -> b.repository(store));
        return store;
    }

    RpccClient client(int inlineLimit) {
        return client("repo", inlineLimit);
    }

    RpccClient client(String repository, int inlineLimit) {
        RpccClient c = RpccClient.builder().resolver(names).repository(repository).inlineFunctionLimit(inlineLimit)
                .timeout(Duration.ofSeconds(20)).build().start();
        nodes.add(c);
        return c;
    }

    void stop(AutoCloseable node) throws Exception {
        nodes.remove(node);
        node.close();
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

    /**
     * A chaining function that sends hop 2 to s2 with the chaining function
     * {@code state.ref} of repository {@code state.repo}, by reference.
     */
    static final ChainingFunctionSource TO_REFERENCE_AT_HOP_2 = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ToReference implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.call("s2", "echo", result,
                            ChainingFunctionSource.reference((String) state.get("ref"), (String) state.get("repo")), state);
                }
            }
            """);

    @Test
    void aChainRunsAChainingFunctionStoredInTheRepositoryByReference() {
        CountingRepository repo = repository("repo");
        ChainingFunctionSource f = function("stored", 10);
        repo.store.put(f); // stored by the repository's owner, not uploaded by a client
        RpccServer s1 = server("s1", b -> b.service("echo", p -> p));
        RpccServer s2 = server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100_000); // nothing uploaded: the chain carries the reference as given

        ChainingFunctionSource ref = ChainingFunctionSource.reference(f.id(), "repo");
        assertEquals("x-stored!", client.runChain(ChainCall.to("s1", "echo").params("x").chainingFunction(ref)).value());
        assertEquals(0, repo.puts.get());
        assertEquals(2, repo.gets.get(), "s1 and s2 each fetched it");
        assertEquals(1, s1.stats().functionFetches());
        assertEquals(1, s2.stats().functionFetches());
    }

    @Test
    void largeFunctionsAreUploadedOnceAndFetchedOncePerServer() {
        CountingRepository repo = repository("repo");
        RpccServer s1 = server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(500);
        ChainingFunctionSource big = function("big", 4000);
        for (int i = 0; i < 3; i++) {
            assertEquals("x-big!", client.runChain("s1", "echo", "x", big, ChainState.empty()).value());
        }
        assertEquals(1, repo.puts.get(), "uploaded once");
        assertEquals(2, repo.gets.get(), "fetched once by each server, then served from their caches");
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
        assertEquals(1, repo.puts.get(), "small functions travel inline");
        assertEquals(2, repo.gets.get());
    }

    @Test
    void anInteractiveClientFetchesTheFunctionItself() {
        CountingRepository repo = repository("repo");
        RpccServer s1 = server("s1", b -> b.service("echo", p -> p));
        RpccServer s2 = server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource ref = client.upload(function("interactive", 1000));
        assertTrue(ref.isReference());

        for (int i = 0; i < 2; i++) {
            assertEquals("x-interactive!", client.runChain(ChainCall.to("s1", "echo").params("x").chainingFunction(ref)
                    .interactive(true)).value());
        }
        assertEquals(1, repo.gets.get(), "the client fetched it once, then ran it from its cache");
        assertEquals(0, s1.stats().functionFetches() + s2.stats().functionFetches(), "the servers ran no chaining function");
    }

    @Test
    void evictedFunctionsAreFetchedAgain() {
        CountingRepository repo = repository("repo");
        server("s1", b -> b.functionCacheSize(1).service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource a = function("a", 1000);
        ChainingFunctionSource b = function("b", 1000);
        client.runChain("s1", "echo", "x", a, ChainState.empty());
        client.runChain("s1", "echo", "x", b, ChainState.empty()); // evicts a at s1
        long before = repo.gets.get();
        assertEquals("x-a!", client.runChain("s1", "echo", "x", a, ChainState.empty()).value());
        assertEquals(before + 1, repo.gets.get(), "s1 fetched a again; s2 still had it");
    }

    @Test
    void storedFunctionsSurviveARestartOfTheRepository() throws Exception {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource f = function("persisted", 2000);
        client.runChain("s1", "echo", "x", f, ChainState.empty());
        assertEquals(1, dirFiles());

        stop(nodes.get(0));
        CountingRepository restarted = repository("repo"); // a new process over the same directory
        server("s3", b -> b.service("echo", p -> p));       // a server that never compiled f
        assertEquals("x-persisted!", client.runChain("s3", "echo", "x", f, ChainState.empty()).value());
        assertEquals(0, restarted.puts.get(), "not uploaded again");
        assertEquals(1, restarted.gets.get(), "s3 fetched it from the restarted repository");
    }

    @Test
    void anUnreachableRepositoryIsATypedErrorNotAHang() throws Exception {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100);
        ChainingFunctionSource f = function("down", 2000);
        client.upload(f);
        stop(nodes.get(0));
        ChainException e = assertThrows(ChainException.class,
                () -> client.runChain("s1", "echo", "x", f, ChainState.empty()));
        RepositoryUnavailableException r = assertInstanceOf(RepositoryUnavailableException.class, e);
        assertEquals("s1", r.host());
        assertEquals(1, r.hop());
        assertTrue(r.remoteMessage().startsWith("cannot fetch chaining function " + f.id() + " from repository 'repo': "
                + HopUnreachableException.class.getSimpleName()), r.remoteMessage());
    }

    @Test
    void aMissingFunctionIsATypedErrorNamingTheHopAndTheRepository() {
        repository("repo");
        server("s1", b -> b.service("echo", p -> p));
        server("s2", b -> b.service("echo", p -> p));
        RpccClient client = client(100_000);
        ChainingFunctionSource ghost = function("ghost", 10);

        ChainingFunctionNotFoundException e = assertThrows(ChainingFunctionNotFoundException.class,
                () -> client.runChain(ChainCall.to("s1", "echo").params("x").chainingFunction(TO_REFERENCE_AT_HOP_2)
                        .state(ChainState.of("ref", ghost.id(), "repo", "repo"))));
        assertEquals("s2", e.host());
        assertEquals(2, e.hop());
        assertEquals(List.of("s1", "s2"), e.failure().path());
        assertEquals("repository 'repo' has no chaining function " + ghost.id(), e.remoteMessage());

        // not cached as missing: once stored, the next chain finds it
        client.upload(ghost);
        assertEquals("x-ghost!", client.runChain(ChainCall.to("s1", "echo").params("x").chainingFunction(TO_REFERENCE_AT_HOP_2)
                .state(ChainState.of("ref", ghost.id(), "repo", "repo"))).value());
    }

    @Test
    void aMalformedAnswerFromTheRepositoryIsATypedError() {
        ChainingFunctionSource f = function("malformed", 10);
        ChainingFunctionSource other = function("other", 10);
        // nodes that answer the repository's get with what a repository never answers
        server("garbage", b -> b.service("rpcc.repository.get", id -> 42));
        server("cobol", b -> b.service("rpcc.repository.get", id -> List.of("COBOL", "DISPLAY 'HI'.")));
        server("corrupt", b -> b.service("rpcc.repository.get", id -> List.of("JAVA", other.source())));
        server("nothing", b -> b.service("echo", p -> p));
        RpccServer s1 = server("s1", b -> b.service("echo", p -> p));
        RpccClient client = client(100_000);

        String[][] cases = {
            {"garbage", "answered Integer 42 to rpcc.repository.get of chaining function " + f.id()},
            {"cobol", "[COBOL, DISPLAY 'HI'.] to rpcc.repository.get of chaining function " + f.id()},
            {"corrupt", "answered a source with id " + other.id() + " to rpcc.repository.get of chaining function "
                    + f.id() + ": its store is corrupt"},
            {"nothing", "cannot fetch chaining function " + f.id() + " from repository 'nothing': "
                    + "UnknownServiceFunctionException"},
        };
        for (String[] c : cases) {
            ChainingFunctionSource ref = ChainingFunctionSource.reference(f.id(), c[0]);
            RepositoryUnavailableException e = assertThrows(RepositoryUnavailableException.class,
                    () -> client.runChain(ChainCall.to("s1", "echo").params("x").chainingFunction(ref)), c[0]);
            assertEquals("s1", e.host(), c[0]);
            assertEquals(1, e.hop(), c[0]);
            assertTrue(e.remoteMessage().contains(c[1]), e.remoteMessage());
            assertTrue(e.remoteMessage().contains("'" + c[0] + "'"), "names the repository: " + e.remoteMessage());
        }
        assertEquals("y", client.runChain("s1", "echo", "y", ChainingFunctionSource.NONE, ChainState.empty()).value(),
                "the server keeps serving");
        assertEquals(4, s1.stats().functionFetches(), "no failed fetch was cached");
    }

    @Test
    void anUploadToARepositoryThatIsDownOrMalformedIsATypedError() throws Exception {
        server("liar", b -> b.service("rpcc.repository.put", p -> "java:" + "0".repeat(64)));
        ChainingFunctionSource f = function("upload", 10);

        RpccClient toLiar = client("liar", 0);
        RepositoryUnavailableException lie = assertThrows(RepositoryUnavailableException.class, () -> toLiar.upload(f));
        assertEquals(toLiar.name(), lie.host());
        assertEquals(0, lie.hop());
        assertTrue(lie.remoteMessage().startsWith("repository 'liar' answered String java:000"), lie.remoteMessage());
        assertTrue(lie.remoteMessage().contains("to rpcc.repository.put of chaining function " + f.id()),
                lie.remoteMessage());
        // a chain over the limit is not started with a function the repository did not store
        assertThrows(RepositoryUnavailableException.class,
                () -> toLiar.runChain("liar", "rpcc.repository.put", "x", f, ChainState.empty()));

        RpccServer repo = server("repo", b -> b.repository(new InMemoryChainingFunctionRepository()));
        RpccClient toRepo = client(0);
        stop(repo);
        RepositoryUnavailableException down = assertThrows(RepositoryUnavailableException.class, () -> toRepo.upload(f));
        assertTrue(down.remoteMessage().startsWith("cannot store chaining function " + f.id() + " in repository 'repo': "
                + HopUnreachableException.class.getSimpleName()), down.remoteMessage());
        assertInstanceOf(HopUnreachableException.class, down.getCause());
    }

    @Test
    void aRepositoryRejectsMalformedRequestsAndKeepsServing() {
        CountingRepository repo = new CountingRepository(new InMemoryChainingFunctionRepository());
        server("repo", b -> b.repository(repo).service("echo", p -> p));
        RpccClient client = client(100_000);

        ServiceFunctionException get = assertThrows(ServiceFunctionException.class, () -> client.runChain(
                ChainCall.to("repo", "rpcc.repository.get").params(42)));
        assertTrue(get.remoteMessage().contains("rpcc.repository.get takes a chaining-function id, got Integer 42"),
                get.remoteMessage());
        ServiceFunctionException put = assertThrows(ServiceFunctionException.class, () -> client.runChain(
                ChainCall.to("repo", "rpcc.repository.put").params(List.of("COBOL", "x"))));
        assertTrue(put.remoteMessage().contains("rpcc.repository.put takes [language, source] with a language of [JAVA, JS]"),
                put.remoteMessage());
        assertEquals(0, repo.puts.get() + repo.gets.get(), "nothing reached the store");
        assertEquals("still", client.runChain("repo", "echo", "still", ChainingFunctionSource.NONE, ChainState.empty())
                .value());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> RpccServer.builder("twice").repository(repo).repository(repo));
        assertTrue(twice.getMessage().contains("rpcc.repository.put"), twice.getMessage());
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
