package io.rpcc.js;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Chains through a server whose JavaScript contexts are reused (the default; {@code -Drpcc.js.reuseContexts=true}
 * is set for the server this class starts all the same): what one chain's function leaves behind (globals, built-ins,
 * top-level declarations, regular-expression statics, promise jobs, the Symbol registry, WeakRefs, the
 * {@code rpcc} object, {@code Math.random}) is not seen by another chain's,
 * also when many chains of both kinds run at once; a chain stopped at its CPU limit leaves the next
 * one whole. (Each channel in detail: {@code io.rpcc.js.internal.JsContextReuseTest}.)
 */
class JsReusedContextChainTest {
    static final StaticNameResolver names = new StaticNameResolver();
    static RpccServer server;
    static RpccClient writers;
    static RpccClient readers;

    static final ChainingFunctionSource WRITER = ChainingFunctionSource.javascript("""
            let secret = 'kept';
            (state, result) => {
                try { globalThis.secret = secret } catch (e) { }
                try { Object.prototype.secret = secret } catch (e) { }
                try { Array.prototype.join = () => secret } catch (e) { }
                try { Symbol.prototype.secret = secret } catch (e) { }
                try { WeakRef.prototype.secret = new WeakRef({ secret }) } catch (e) { }
                try { Math.random = () => 0.25 } catch (e) { }
                /(kept)/.exec('a ' + secret);
                Promise.resolve().then(() => { try { String.prototype.secret = secret } catch (e) { } });
                return rpcc.end('written');
            };
            """);
    static final ChainingFunctionSource READER = ChainingFunctionSource.javascript("""
            (state, result) => rpcc.end([typeof secret, ({}).secret, ''.secret, [1, 2].join('+'),
                RegExp.$1 || '', Symbol.for('secret').secret, typeof WeakRef.prototype.secret, typeof rpcc.secret,
                Math.random() === 0.25].join(','))
            """);
    static final String NOTHING = "undefined,,,1+2,,,undefined,undefined,false";

    @BeforeAll
    static void start() {
        System.setProperty("rpcc.js.reuseContexts", "true"); // read when the server's compilers are made
        try {
            server = RpccServer.builder("reusing").resolver(names).service("echo", p -> p).build().start();
        } finally {
            System.clearProperty("rpcc.js.reuseContexts");
        }
        names.register("reusing", server.address());
        writers = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(30)).build().start();
        readers = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(30)).build().start();
    }

    @AfterAll
    static void stop() {
        writers.close();
        readers.close();
        server.close();
    }

    @Test
    void aChainSeesNothingOfAnotherChainsFunction() {
        assertEquals("written", writers.runChain("reusing", "echo", "x", WRITER, ChainState.empty()).value());
        assertEquals(NOTHING, readers.runChain("reusing", "echo", "x", READER, ChainState.empty()).value());
    }

    @Test
    void manyChainsAtOnceSeeNothingOfEachOther() {
        List<CompletableFuture<Object>> reads = new ArrayList<>();
        List<CompletableFuture<Object>> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            writes.add(CompletableFuture.supplyAsync(() ->
                    writers.runChain("reusing", "echo", "x", WRITER, ChainState.empty()).value()));
            reads.add(CompletableFuture.supplyAsync(() ->
                    readers.runChain("reusing", "echo", "x", READER, ChainState.empty()).value()));
        }
        writes.forEach(w -> assertEquals("written", w.join()));
        reads.forEach(r -> assertEquals(NOTHING, r.join()));
    }

    @Test
    void aChainStoppedAtItsLimitLeavesTheNextWhole() {
        SandboxViolationException e = assertThrows(SandboxViolationException.class, () -> writers.runChain("reusing",
                "echo", "x", ChainingFunctionSource.javascript("(state, result) => { for (;;) { } }"), ChainState.empty()));
        assertEquals("cpu-time", e.rule());
        assertEquals(NOTHING, readers.runChain("reusing", "echo", "x", READER, ChainState.empty()).value());
    }
}
