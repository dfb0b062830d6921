package io.rpcc.function.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.CompiledFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Compiling chaining functions in memory, caching them by content id, and running them. */
class FunctionRuntimeTest {
    /** Holds the threads a started node would hold for its runtime. */
    private static FunctionRuntime held;

    /** The threads a started node would hold for its runtime. */
    @BeforeAll
    static void holdFunctionResources() {
        held = runtime(1).open();
    }

    @AfterAll
    static void releaseFunctionResources() {
        held.close();
    }

    private static FunctionRuntime runtime(int max) {
        return FunctionRuntime.forNode(io.rpcc.core.TypeRegistry.empty(), io.rpcc.core.SandboxLimits.DEFAULT, max);
    }

    private static ChainingFunctionSource adder(int n) {
        return ChainingFunctionSource.java("""
                package demo.fn;
                import io.rpcc.core.*;
                /** adds a constant */
                public final class Adder implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end((Integer) result + %d);
                    }
                }
                """.formatted(n));
    }

    /**
     * The static routes' chaining function text compiles and walks a route in the sandbox too (a copy
     * of it, one character longer, is not rpcc's own and so is compiled): what a node that does not
     * recognise the text would run.
     */
    @Test
    void theStaticRoutesTextWalksARouteInTheSandbox() {
        FunctionRuntime rt = runtime(16);
        ChainingFunctionSource copy = ChainingFunctionSource.java(io.rpcc.core.StaticRoute.CHAINING_FUNCTION.source() + " ");
        CompiledFunction f = rt.load(copy).function();
        assertTrue(!(f.getClass().getSimpleName().equals("StaticRouteFunction")), "compiled, not the engine's: " + f);
        io.rpcc.core.StaticRoute route = io.rpcc.core.StaticRoute.of(io.rpcc.core.StaticRoute.hop("s1", "a"),
                io.rpcc.core.StaticRoute.hop("s2", "b"), io.rpcc.core.StaticRoute.hop("s1", "a"));
        NextHop.Call second = (NextHop.Call) rt.invoke(f, route.initialState(), "r1");
        assertEquals(List.of("s2", "b", "r1"), List.of(second.server(), second.serviceFunction(), second.params()));
        NextHop.Call third = (NextHop.Call) rt.invoke(f, second.state(), "r2");
        assertEquals(List.of("s1", "a"), List.of(third.server(), third.serviceFunction()));
        assertEquals(NextHop.end("r3"), rt.invoke(f, third.state(), "r3"));
        HopFailure bad = assertThrows(HopFailure.class, () -> rt.invoke(f, ChainState.of(io.rpcc.core.StaticRoute.ROUTE,
                new byte[] {1, 0, 0, 0, 9}, io.rpcc.core.StaticRoute.NEXT, 1), "r"));
        assertEquals(ChainErrorCode.CHAINING_FUNCTION_FAILED, bad.code());
    }

    @Test
    void compilesOnceAndServesTheCacheAfterwards() {
        FunctionRuntime rt = runtime(16);
        FunctionRuntime.Loaded first = rt.load(adder(1));
        FunctionRuntime.Loaded second = rt.load(adder(1));
        assertSame(first.function(), second.function());
        assertEquals(new FunctionRuntime.Stats(1, 1, rt.stats().compileNanos(), 1, 0, rt.stats().abandonedSandboxThreads()), rt.stats());
        NextHop next = rt.invoke(first.function(), ChainState.empty(), 41);
        assertEquals(NextHop.end(42), next);
        CompiledFunction counter = rt.load(ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Counter implements ChainingFunction {
                    private int calls;
                    public NextHop apply(ChainState state, Object result) { return NextHop.end(++calls); }
                }
                """)).function();
        assertEquals(NextHop.end(1), rt.invoke(counter, ChainState.empty(), null));
        assertEquals(NextHop.end(1), rt.invoke(counter, ChainState.empty(), null), "a fresh instance per run");
    }

    @Test
    void aChangedSourceIsANewFunctionInItsOwnClassLoader() throws Exception {
        FunctionRuntime rt = FunctionRuntime.forNode(io.rpcc.core.TypeRegistry.empty(), null, 16); // no sandbox: may look
        String whoAmI = """
                package demo.fn;
                import io.rpcc.core.*;
                public class Who implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(java.util.List.of(getClass(), "%s"));
                    }
                }
                """;
        List<?> a = (List<?>) ((NextHop.End) rt.invoke(rt.load(ChainingFunctionSource.java(whoAmI.formatted("v1")))
                .function(), ChainState.empty(), null)).result();
        List<?> b = (List<?>) ((NextHop.End) rt.invoke(rt.load(ChainingFunctionSource.java(whoAmI.formatted("v2")))
                .function(), ChainState.empty(), null)).result();
        Class<?> ca = (Class<?>) a.get(0);
        Class<?> cb = (Class<?>) b.get(0);
        assertEquals("demo.fn.Who", ca.getName());
        assertEquals(ca.getName(), cb.getName());
        assertNotSame(ca.getClassLoader(), cb.getClassLoader());
        assertEquals(NextHop.end(3), rt.invoke(rt.load(adder(2)).function(), ChainState.empty(), 1));
    }

    @Test
    void concurrentFirstUsesCompileOnce() throws Exception {
        FunctionRuntime rt = runtime(16);
        ChainingFunctionSource src = adder(7);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<CompiledFunction>> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            all.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return rt.load(src).function();
            }));
        }
        go.countDown();
        CompiledFunction f = all.get(0).join();
        for (CompletableFuture<CompiledFunction> c : all) {
            assertSame(f, c.join());
        }
        assertEquals(1, rt.stats().misses());
        assertEquals(7, rt.stats().hits());
    }

    @Test
    void leastRecentlyUsedFunctionsAreEvicted() {
        FunctionRuntime rt = runtime(2);
        CompiledFunction one = rt.load(adder(1)).function();
        rt.load(adder(2));
        rt.load(adder(1));          // 1 is now the most recently used
        rt.load(adder(3));          // evicts 2
        assertEquals(2, rt.stats().size());
        assertSame(one, rt.load(adder(1)).function());
        long misses = rt.stats().misses();
        rt.load(adder(2));
        assertEquals(misses + 1, rt.stats().misses(), "2 was evicted and compiles again");
    }

    @Test
    void compileErrorsCarryDiagnosticsAndAreRemembered() {
        FunctionRuntime rt = runtime(16);
        ChainingFunctionSource broken = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Broken implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        int x = "text";
                        return NextHop.end(x);
                    }
                }
                """);
        HopFailure e = assertThrows(HopFailure.class, () -> rt.load(broken));
        assertEquals(ChainErrorCode.CHAINING_FUNCTION_COMPILE, e.code());
        assertEquals(1, e.fields().diagnostics().size());
        ChainingFunctionCompileException.Diagnostic d = e.fields().diagnostics().get(0);
        assertEquals(4, d.line());
        assertEquals(17, d.column());
        assertTrue(d.message().startsWith("incompatible types"), d.message());
        assertThrows(HopFailure.class, () -> rt.load(broken));
        assertEquals(1, rt.stats().misses(), "a source that does not compile is not compiled again");
    }

    @Test
    void classesThatAreNotChainingFunctionsAreRefused() {
        FunctionRuntime rt = runtime(16);
        HopFailure notCf = assertThrows(HopFailure.class,
                () -> rt.load(ChainingFunctionSource.java("public class Plain { }")));
        assertTrue(notCf.getMessage().contains("Plain does not implement io.rpcc.core.ChainingFunction"), notCf.getMessage());
        HopFailure noCtor = assertThrows(HopFailure.class, () -> rt.load(ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class NoCtor implements ChainingFunction {
                    public NoCtor(int x) { }
                    public NextHop apply(ChainState s, Object r) { return NextHop.end(r); }
                }
                """)));
        assertTrue(noCtor.getMessage().contains("no public no-argument constructor"), noCtor.getMessage());
    }

    @Test
    void whatAFunctionThrowsIsTyped() {
        FunctionRuntime rt = runtime(16);
        CompiledFunction f = rt.load(ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Deep implements ChainingFunction {
                    public NextHop apply(ChainState s, Object r) { return apply(s, r); }
                }
                """)).function();
        HopFailure e = assertThrows(HopFailure.class, () -> rt.invoke(f, ChainState.empty(), 1));
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, e.code());
        assertTrue(e.getMessage().contains("(rule: stack-depth)"), e.getMessage());
    }

    @Test
    void theClassNameScanIsLinearOnCraftedSources() {
        assertEquals("a.b.Real", JavaFunctionCompiler.className("""
                // public class Comment
                package a.b; /* public class Block */
                import x.*;
                public final class Real implements ChainingFunction { class Inner { } public record R() { } }
                """));
        assertEquals("Tb", JavaFunctionCompiler.className("String s = \"\"\"\n public class No \"\"\"; public class Tb {}"));
        // inputs on which the regular expressions used before backtracked for most of a minute
        String[] crafted = {"public ".repeat(40_000), "/*".repeat(100_000), "package ".repeat(30_000),
                "public final ".repeat(20_000) + "clas", "\"".repeat(200_000), "{".repeat(200_000)};
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
            for (String source : crafted) {
                String name = JavaFunctionCompiler.className(source);
                assertTrue(name.endsWith("ChainingFunctionImpl"), name); // javac then says what is wrong
            }
        });
    }
}
