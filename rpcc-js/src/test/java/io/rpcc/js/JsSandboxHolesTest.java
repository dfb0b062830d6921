package io.rpcc.js;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.testing.HostResources;
import io.rpcc.server.RpccServer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The JavaScript sandbox against whole classes of holes: code that would run outside the budget
 * (promise jobs, getters and traps on returned values, thrown objects with hostile conversions),
 * the host's state (Java objects behind the views, the rpcc global, time zone, built-ins left
 * changed), single built-in calls that allocate or compute far past the limits, hostile sources
 * (too large, too deep, superlinear to parse) and the watcher itself (many runaway functions at
 * once). Every attack ends its chain with a typed error naming the hop and host; after it, the
 * server answers a normal chain and the JVM's threads, file descriptors and heap are back where
 * they were.
 */
class JsSandboxHolesTest {
    record Secret(String value) {
    }

    static final StaticNameResolver names = new StaticNameResolver();
    static final TypeRegistry types = TypeRegistry.of(Secret.class);
    static final Duration WALL = Duration.ofSeconds(2);
    static RpccServer vault;
    static RpccClient client;

    @BeforeAll
    static void start() {
        vault = RpccServer.builder("vault").resolver(names).types(types)
                .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL))
                .service("echo", p -> p).build().start();
        names.register("vault", vault.address());
        client = RpccClient.builder().resolver(names).types(types).timeout(Duration.ofSeconds(20)).build().start();
        normalChainWorks(); // GraalJS loaded before any baseline is taken
    }

    @AfterAll
    static void stop() {
        client.close();
        vault.close();
    }

    static void normalChainWorks() {
        ChainingFunctionSource ok = ChainingFunctionSource.javascript(
                "(state, result) => rpcc.end([1, 2, 3].map(i => result + i).join(',') + '|' + 'a-b'.split('-').length)");
        assertEquals("x1,x2,x3|2", client.runChain("vault", "echo", "x", ok, ChainState.empty()).value());
    }

    static ChainState state() {
        return ChainState.of("secret", new Secret("s3cret"), "list", List.of(1, 2), "big", new BigDecimal("1.5"));
    }

    static ChainingFunctionSource wrap(String code) {
        return ChainingFunctionSource.javascript("(state, result) => { " + code + "; return rpcc.end('escaped'); }");
    }

    /** Runs {@code attack}, then a normal chain; the JVM must come back to where it was. */
    static void contained(Runnable attack) {
        contained(attack, 0);
    }

    /**
     * Like {@link #contained(Runnable)}, for an attack that runs {@code concurrent} sandboxed
     * invocations at once: the shared sandbox pool keeps that many more idle workers until its
     * keep-alive expires, which is not a leak.
     */
    static void contained(Runnable attack, int concurrent) {
        HostResources before = HostResources.now();
        attack.run();
        normalChainWorks();
        HostResources.assertBackTo(before, 4 + concurrent, 8, 48L << 20);
    }

    /** An attack: a function body, and the rules it may be refused under (one, or two where a race decides). */
    record Attempt(String name, String code, String rules) {
    }

    static Attempt attempt(String name, String code, String rules) {
        return new Attempt(name, code, rules);
    }

    /** The attacks, by class of hole. */
    static final List<List<Object>> ATTEMPTS = List.of(
            List.of("code running outside the budget",
                    attempt("promise job spinning after the return value is built",
                            "Promise.resolve().then(() => { for (;;) { } }); return rpcc.end('early')", "cpu-time"),
                    attempt("async function resuming after return",
                            "(async () => { await null; let s = ''; for (;;) { s += 'x'; } })(); return rpcc.end('early')",
                            "cpu-time|memory"),
                    attempt("endless chain of promise jobs", "const f = () => Promise.resolve().then(f); f()",
                            "cpu-time|memory"),
                    attempt("getter on the returned value", "return rpcc.end({ get x() { for (;;) { } } })", "cpu-time"),
                    attempt("Proxy ownKeys trap on the returned value",
                            "return rpcc.end(new Proxy({}, { ownKeys() { for (;;) { } } }))", "cpu-time"),
                    attempt("getter on the next hop's state",
                            "return rpcc.call('vault', 'echo', 1, { get step() { for (;;) { } } })", "cpu-time"),
                    attempt("a sparse array of 2^30 elements as the result", "return rpcc.end(new Array(2 ** 30))", "memory"),
                    attempt("a wide object as a partial reply",
                            "const o = {}; for (let i = 0; i < 1.2e6; i++) o['k' + i] = i; rpcc.preturn(o)",
                            "memory|cpu-time")),
            List.of("the host's objects and state",
                    attempt("reflection on the rpcc global", "rpcc.getClass().getClassLoader()", "reflection"),
                    attempt("reflection caught and ignored", "try { state.secret.getClass() } catch (e) { }", "reflection"),
                    attempt("deleting a member of a Java value, caught", "try { delete state.secret.value } catch (e) { }",
                            "host-access"),
                    attempt("replacing rpcc.call", "rpcc.call = () => rpcc.end('forged')", "host-access"),
                    attempt("deleting rpcc.end, caught", "try { delete rpcc.end } catch (e) { }", "host-access"),
                    attempt("a BigDecimal is not a Java object to call", "state.big.getClass().getProtectionDomain()",
                            "reflection"),
                    attempt("the Graal global", "Graal.versionGraalVM", "environment"),
                    attempt("print to the server's output", "print('x')", "files"),
                    attempt("a saved reference to Atomics", "const A = globalThis.Atomics; A.wait(new Int32Array(4), 0, 0)",
                            "threads"),
                    attempt("setTimeout", "setTimeout(() => { }, 0)", "threads")),
            List.of("one built-in call far past the limits",
                    attempt("repeat to 2^28 characters", "'x'.repeat(2 ** 28)", "memory"),
                    attempt("padEnd to 2^29 characters", "'x'.padEnd(2 ** 29)", "memory"),
                    attempt("a typed array of 1 GiB", "new Uint8Array(2 ** 30)", "memory"),
                    attempt("a resizable buffer grown to 1 GiB",
                            "new ArrayBuffer(8, { maxByteLength: 2 ** 30 }).resize(2 ** 30)", "memory"),
                    attempt("split('') of 2 M characters", "'ab'.repeat(1 << 20).split('')", "memory"),
                    attempt("split by new String('')", "'ab'.repeat(1 << 20).split(new String(''))", "memory"),
                    attempt("split by an object whose toString gives ''",
                            "'ab'.repeat(1 << 20).split({ toString: () => '' })", "memory"),
                    attempt("split by an empty regular expression", "'ab'.repeat(1 << 20).split(/(?:)/)", "memory"),
                    attempt("RegExp.prototype[Symbol.split] called directly", "/(?:)/[Symbol.split]('ab'.repeat(1 << 20))",
                            "memory"),
                    attempt("split by a lookahead matching between every character",
                            "class R extends RegExp { }; 'ab'.repeat(1 << 20).split(new R('(?=[ab])'))", "memory"),
                    attempt("a Symbol.split getter that vanishes on the second read",
                            "let n = 0; 'ab'.repeat(1 << 20).split({ get [Symbol.split]() { return n++ ? undefined "
                                    + ": RegExp.prototype[Symbol.split].bind(/(?:)/) }, toString: () => '' })", "memory"),
                    attempt("split by a separator found at every character", "','.repeat(1 << 21).split(',')",
                            "memory|cpu-time"),
                    attempt("join of a huge sparse array", "new Array(2 ** 28).join('ab')", "memory|cpu-time"),
                    attempt("JSON.stringify of a shared graph",
                            "let o = {}; for (let i = 0; i < 30; i++) o = { a: o, b: o }; JSON.stringify(o, null, 8)",
                            "memory|cpu-time"),
                    // the backtracking engine keeps allocating while it searches: on a slow machine the
                    // allocation limit can come before the CPU limit; either one ends the function
                    attempt("catastrophic backtracking with a back-reference",
                            "/(a+)+\\1$/.test('a'.repeat(40) + 'b')", "cpu-time|memory"),
                    attempt("sort with a slow comparator",
                            "[...Array(1e5).keys()].sort((a, b) => { for (let i = 0; i < 1e4; i++); return b - a })",
                            "cpu-time"),
                    attempt("recursion through getters", "const o = { get x() { return this.x + 1 } }; o.x", "stack-depth")));

    @TestFactory
    Stream<DynamicContainer> everyHoleIsClosed() {
        return ATTEMPTS.stream().map(group -> {
            HostResources[] before = new HostResources[1];
            Stream<DynamicTest> attacks = group.subList(1, group.size()).stream().map(Attempt.class::cast)
                    .map(a -> DynamicTest.dynamicTest(a.name(), () -> refused(a)));
            return DynamicContainer.dynamicContainer((String) group.get(0), Stream.of(
                    Stream.of(DynamicTest.dynamicTest("baseline", () -> before[0] = HostResources.now())),
                    attacks,
                    Stream.of(DynamicTest.dynamicTest("the JVM is back where it was",
                            () -> HostResources.assertBackTo(before[0], 4, 8, 48L << 20)))).flatMap(t -> t));
        });
    }

    static void refused(Attempt a) {
        long start = System.nanoTime();
        ChainException e = assertThrows(ChainException.class,
                () -> client.runChain("vault", "echo", "x", wrap(a.code()), state()));
        long ms = (System.nanoTime() - start) / 1_000_000;
        SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, () -> a.name() + ": " + e);
        List<String> rules = new java.util.ArrayList<>(List.of(a.rules().split("\\|")));
        if (rules.contains("cpu-time")) {
            rules.add("wall-time"); // on a loaded machine the function gets less CPU than wall time: the wall limit fires first
        }
        assertTrue(rules.contains(v.rule()), () -> a.name() + ": " + v.getMessage());
        assertEquals("vault", v.host());
        assertEquals(1, v.hop());
        assertTrue(ms < WALL.toMillis() + 2500, () -> a.name() + ": took " + ms + " ms");
        normalChainWorks();
    }

    /**
     * Every road to a split into one piece per character is refused by the guard before the
     * built-in runs (its message says so), not by the watcher after the built-in has allocated.
     */
    @Test
    void everySplitIntoCharactersIsRefusedBeforeItRuns() {
        ATTEMPTS.stream().flatMap(g -> g.subList(1, g.size()).stream()).map(Attempt.class::cast)
                .filter(a -> a.name().contains("split") && a.rules().equals("memory"))
                .forEach(a -> {
                    ChainException e = assertThrows(ChainException.class,
                            () -> client.runChain("vault", "echo", "x", wrap(a.code()), state()));
                    SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, () -> a.name() + ": " + e);
                    assertTrue(v.getMessage().contains("pieces; pass a limit"), () -> a.name() + ": " + v.getMessage());
                });
        normalChainWorks();
    }

    /** The longest message or stack line a failure may carry, with room for the note that it was cut. */
    private static final int BOUND = FunctionRuntime.MAX_MESSAGE_CHARS + 200;

    static Stream<Arguments> hostileErrors() {
        return Stream.of(
                Arguments.of("thrown object whose toString spins", "throw { toString() { for (;;) { } } }"),
                Arguments.of("error whose message getter spins",
                        "const e = new Error('m'); Object.defineProperty(e, 'message', { get() { for (;;) { } } }); throw e"),
                Arguments.of("thrown object with Symbol.toPrimitive", "throw { [Symbol.toPrimitive]() { for (;;) { } } }"),
                Arguments.of("error whose toString throws",
                        "const e = new Error('m'); e.toString = () => { throw e }; throw e"),
                Arguments.of("thrown Proxy", "throw new Proxy({}, { get() { for (;;) { } } })"),
                Arguments.of("thrown non-Error value", "throw 42"),
                Arguments.of("huge message", "throw new Error('x'.repeat(1 << 22))"),
                Arguments.of("huge error name", "const e = new Error('m'); e.name = 'N'.repeat(1 << 20); throw e"),
                Arguments.of("huge function name in the stack",
                        "const f = { ['f'.repeat(1 << 20)]() { throw new Error('deep') } }; f['f'.repeat(1 << 20)]()"));
    }

    static void hostileErrorIsReported(String name, String code) {
        long start = System.nanoTime();
        ChainException e = assertThrows(ChainException.class,
                () -> client.runChain("vault", "echo", "x", wrap(code), ChainState.empty()));
        ChainingFunctionException f = assertInstanceOf(ChainingFunctionException.class, e, () -> name + ": " + e);
        assertEquals("vault", f.host());
        assertTrue(f.remoteMessage().length() < BOUND, () -> name + ": message of " + f.remoteMessage().length());
        assertTrue(f.exceptionName().length() < 200, () -> name + ": name of " + f.exceptionName().length());
        f.failure().details().forEach(line -> assertTrue(line.length() < BOUND, name));
        long ms = (System.nanoTime() - start) / 1_000_000; // parsing a new function included, on a loaded machine
        assertTrue(ms < 10_000, () -> name + ": took " + ms + " ms, the client's timeout is 20 s");
        normalChainWorks();
    }

    /** Errors are taken apart inside the budget, without running their code, and their text is bounded. */
    @Test
    void hostileErrorsAreReportedBoundedAndWithoutRunningTheirCode() {
        contained(() -> hostileErrors().forEach(a -> hostileErrorIsReported((String) a.get()[0], (String) a.get()[1])));
    }

    @Test
    void whatAFunctionSeesOfTheHostIsNothing() {
        ChainingFunctionSource probe = ChainingFunctionSource.javascript("""
                (state, result) => {
                    let caught;
                    try { rpcc.call(1, 2, 3) } catch (e) { caught = e }
                    return rpcc.end([
                        typeof caught.getClass, typeof caught.getStackTrace, typeof Java, typeof Polyglot,
                        new Date(0).getTimezoneOffset(), Intl.DateTimeFormat().resolvedOptions().timeZone,
                        new Intl.NumberFormat().resolvedOptions().locale, Object.keys(rpcc).join(','),
                        typeof state.big, Object.keys(state.big).length
                    ].join(' '));
                }
                """);
        assertEquals("undefined undefined function function 0 GMT en-US call,callThenEnd,end,preturn,console,node,hop,split object 0",
                client.runChain("vault", "echo", "x", probe, state()).value());
    }

    @Test
    void changedBuiltInsAndGlobalsDoNotReachTheNextFunction() {
        ChainingFunctionSource poison = ChainingFunctionSource.javascript("""
                (state, result) => {
                    const refused = [];
                    const attempt = (what, change) => { try { change() } catch (e) { refused.push(what) } };
                    attempt('split', () => { String.prototype.split = () => ['poisoned'] });
                    attempt('join', () => { Array.prototype.join = () => 'poisoned' });
                    attempt('then', () => Object.defineProperty(Object.prototype, 'then', { get() { for (;;) { } } }));
                    attempt('global', () => { globalThis.rpccShadow = 1 });
                    return rpcc.end(typeof rpccShadow + ' ' + refused.join(','));
                }
                """);
        // Contexts are reused (the default): their built-ins and global object are frozen, so each change
        // is refused where it is made (a sloppy-mode assignment is ignored, defineProperty throws) rather
        // than undone afterwards. With -Drpcc.js.reuseContexts=false each function gets a fresh context
        // instead, and this one would see its own changes ("number "). Either way, the next one sees none.
        assertEquals("undefined then", client.runChain("vault", "echo", "x", poison, ChainState.empty()).value());
        ChainingFunctionSource check = ChainingFunctionSource.javascript(
                "(state, result) => rpcc.end(typeof rpccShadow + ' ' + ({}).then + ' ' + 'a-b'.split('-').join('+'))");
        assertEquals("undefined undefined a+b", client.runChain("vault", "echo", "x", check, ChainState.empty()).value());
    }

    @Test
    void aSourceOverTheSizeLimitIsRefusedBeforeParsing() {
        contained(() -> {
            ChainingFunctionSource big = ChainingFunctionSource.javascript(
                    "(state, result) => rpcc.end('" + "x".repeat(40_000) + "')");
            ChainingFunctionCompileException e = assertThrows(ChainingFunctionCompileException.class,
                    () -> client.runChain("vault", "echo", "x", big, ChainState.empty()));
            assertEquals("vault", e.host());
            assertTrue(e.getMessage().contains("over this node's limit of 32768 for JS functions"), e.getMessage());
        });
    }

    @Test
    void aSourceNestedTooDeeplyIsACompileError() {
        contained(() -> {
            ChainingFunctionSource deep = ChainingFunctionSource.javascript(
                    "(state, result) => rpcc.end(" + "[".repeat(15_000) + "]".repeat(15_000) + ")");
            ChainingFunctionCompileException e = assertThrows(ChainingFunctionCompileException.class,
                    () -> client.runChain("vault", "echo", "x", deep, ChainState.empty()));
            assertEquals("vault", e.host());
            assertTrue(e.getMessage().contains("nests too deeply"), e.getMessage());
        });
    }

    @Test
    void aSourceThatIsSuperlinearToParseIsStoppedAtTheLimit() {
        contained(() -> {
            long start = System.nanoTime();
            ChainingFunctionSource slow = ChainingFunctionSource.javascript(
                    "(state, result) => { " + "let a = 1;".repeat(3200) + " }");
            ChainException e = assertThrows(ChainException.class,
                    () -> client.runChain("vault", "echo", "x", slow, ChainState.empty()));
            SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, e::toString);
            assertTrue(List.of("cpu-time", "memory", "wall-time").contains(v.rule()), v.getMessage());
            assertEquals("vault", v.host());
            assertTrue(System.nanoTime() - start < (WALL.toMillis() + 2500) * 1_000_000L);
        });
    }

    @Test
    void aFloodOfDistinctFunctionsLeavesNothingBehind() {
        contained(() -> {
            for (int i = 0; i < 60; i++) {
                ChainingFunctionSource f = ChainingFunctionSource.javascript(
                        "(state, result) => rpcc.end(result + " + i + ")");
                assertEquals("x" + i, client.runChain("vault", "echo", "x", f, ChainState.empty()).value());
            }
        });
    }

    @Test
    void runawayFunctionsAtOnceDoNotStopOtherChains() {
        contained(() -> {
            List<CompletableFuture<?>> runaway = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                runaway.add(client.startChain("vault", "echo", "x", wrap("for (;;) { } /* " + i + " */"), ChainState.empty()));
                runaway.add(client.startChain("vault", "echo", "x", wrap("'y'.padEnd(2 ** 29) /* " + i + " */"),
                        ChainState.empty()));
            }
            normalChainWorks();
            for (CompletableFuture<?> f : runaway) {
                Throwable t = assertThrows(Exception.class, f::join).getCause();
                SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, t, String.valueOf(t));
                assertTrue(List.of("cpu-time", "memory", "wall-time").contains(v.rule()), v.getMessage());
            }
        }, 6);
    }
}
