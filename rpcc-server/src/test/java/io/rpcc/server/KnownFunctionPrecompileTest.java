package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.repository.ChainingFunctionRepository;
import io.rpcc.repository.InMemoryChainingFunctionRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Chaining functions a node knows before any chain names them ({@code NodeBuilder.precompileFunctions}),
 * on real nodes: compiled into the started node's cache in the background (its counters show them before
 * any chain), with {@code start()} returning while that work is still held up, a function that does not
 * compile not failing the node (the first chain naming it gets the compile error), a reference fetched
 * from its repository at start, and the first chains naming them hitting the cache.
 */
class KnownFunctionPrecompileTest {
    final StaticNameResolver names = new StaticNameResolver();
    final List<AutoCloseable> nodes = new ArrayList<>();

    /** A store whose reads wait until the test lets them go. */
    static final class HeldRepository implements ChainingFunctionRepository {
        final ChainingFunctionRepository store = new InMemoryChainingFunctionRepository();
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicLong gets = new AtomicLong();

        @Override
        public String put(ChainingFunctionSource source) {
            return store.put(source);
        }

        @Override
        public Optional<ChainingFunctionSource> get(String id) {
            gets.incrementAndGet();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return store.get(id);
        }
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable n : nodes.reversed()) {
            n.close();
        }
    }

    RpccServer start(RpccServer.Builder builder) {
        RpccServer s = builder.build().start();
        names.register(s.name(), s.address());
        nodes.add(s);
        return s;
    }

    static ChainingFunctionSource ending(String tag) {
        return ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                /** %s */
                public class Known implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(result + "-%s");
                    }
                }
                """.formatted(tag, tag));
    }

    static final ChainingFunctionSource BROKEN = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Broken implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(result) // no semicolon
                }
            }
            """);

    static void await(RpccServer server, Predicate<ServerStats> until) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!until.test(server.stats())) {
            assertTrue(System.nanoTime() < end, () -> "the known functions were not compiled in 60 s: " + server.stats());
            Thread.sleep(20);
        }
    }

    @Test
    void knownFunctionsAreCompiledInTheBackgroundAtStartAndTheFirstChainsHitTheCache() throws Exception {
        HeldRepository store = new HeldRepository();
        start(RpccServer.builder("repo").resolver(names).repository(store));
        ChainingFunctionSource stored = ending("stored");
        store.put(stored);
        ChainingFunctionSource inline = ending("inline");

        // the reference comes first: its fetch is held, so the node's precompile is held while start() returns
        RpccServer server = start(RpccServer.builder("s1").resolver(names).service("echo", p -> p)
                .precompileFunctions(ChainingFunctionSource.reference(stored.id(), "repo"), BROKEN, inline));
        // start() returned while the reference's fetch is held (had it waited, it would be waiting still): at most
        // the reference has begun to load (a miss counts when a load begins); the two after it wait behind it
        assertTrue(server.stats().functionCacheMisses() <= 1, () -> "start() did not wait for the known functions: "
                + server.stats());

        store.release.countDown();
        await(server, s -> s.functionCacheMisses() == 3);
        ServerStats before = server.stats();
        assertEquals(1, before.functionFetches(), "the reference was fetched at start");
        assertEquals(0, before.functionCacheHits(), "no chain yet");

        RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(30)).build().start();
        nodes.add(client);
        assertEquals("x-inline", client.runChain("s1", "echo", "x", inline, ChainState.empty()).value());
        assertEquals("x-stored", client.runChain("s1", "echo", "x", ChainingFunctionSource.reference(stored.id(), "repo"),
                ChainState.empty()).value());
        ChainException e = assertThrows(ChainException.class,
                () -> client.runChain("s1", "echo", "x", BROKEN, ChainState.empty()));
        assertInstanceOf(ChainingFunctionCompileException.class, e);

        ServerStats after = server.stats();
        assertEquals(3, after.functionCacheMisses(), "every chain found its function compiled (or its error kept)");
        assertEquals(1, after.functionFetches());
        assertEquals(1, store.gets.get(), "the repository was asked once, at start");
        assertTrue(after.functionCacheHits() >= 3, after::toString);
    }

    @Test
    void theBudgetBoundsHowManyAreCompiledAndTheRestCompileOnFirstUse() throws Exception {
        ChainingFunctionSource first = ending("first");
        ChainingFunctionSource second = ending("second");
        RpccServer server = start(RpccServer.builder("s2").resolver(names).service("echo", p -> p)
                .precompileFunctions(List.of(first, second)).precompileBudget(1, Duration.ofMinutes(1)));
        await(server, s -> s.functionCacheMisses() == 1);

        RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(30)).build().start();
        nodes.add(client);
        assertEquals("x-first", client.runChain("s2", "echo", "x", first, ChainState.empty()).value());
        assertEquals(1, server.stats().functionCacheMisses(), "the first was compiled at start");
        assertEquals("x-second", client.runChain("s2", "echo", "x", second, ChainState.empty()).value());
        assertEquals(2, server.stats().functionCacheMisses(), "the second, over the budget, compiled on first use");
    }
}
