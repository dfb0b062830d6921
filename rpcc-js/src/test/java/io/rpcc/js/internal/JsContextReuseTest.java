package io.rpcc.js.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.spi.FunctionFailure;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reused JavaScript contexts ({@link JsRealm}): for each channel through which one invocation
 * could leave state for another (globals, built-ins and their prototypes, the {@code Symbol.for}
 * registry, top-level declarations, regular-expression statics, promise jobs, finalization
 * callbacks, the {@code rpcc} object), a writer runs, then a reader of the same and of another
 * function, in one realm (the pool holds one idle realm between the calls). Realms whose
 * invocation broke a rule or was cancelled are discarded, and the next invocation runs normally.
 */
class JsContextReuseTest extends ReusedRealmTests {
    /** {@code write} runs (whatever it does, its result is ignored), then {@code read} sees nothing of it. */
    static void noTrace(String write, String read, Object expected) throws Exception {
        try {
            run(write);
        } catch (FunctionFailure expectedRefusal) {
            // a refused write is fine too: nothing of it may stay
        }
        assertEquals(expected, run(read), () -> "after " + write);
        // and the same reader as another function (another factory in the same realm)
        assertEquals(expected, run("/* another function */ " + read), () -> "after " + write);
    }

    @Test
    void aGlobalDoesNotOutliveItsInvocation() throws Exception {
        noTrace("(s, r) => { globalThis.stash = 1; stash2 = 2; var stash3 = 3; return rpcc.end(1) }",
                "(s, r) => rpcc.end(typeof stash + typeof stash2 + typeof stash3 + typeof globalThis.stash)",
                "undefinedundefinedundefinedundefined");
    }

    @Test
    void aChangedBuiltInDoesNotReachTheNextInvocation() throws Exception {
        noTrace("""
                (s, r) => {
                    try { String.prototype.split = () => ['poisoned'] } catch (e) { }
                    try { Array.prototype.join = () => 'poisoned' } catch (e) { }
                    try { Object.defineProperty(Object.prototype, 'then', { get() { for (;;) { } } }) } catch (e) { }
                    try { Object.prototype.stash = 1 } catch (e) { }
                    try { Math.stash = 1 } catch (e) { }
                    try { Object.setPrototypeOf(Array.prototype, { stash: 1 }) } catch (e) { }
                    try { delete Array.prototype.map } catch (e) { }
                    try { Object.getPrototypeOf(function* () {}).stash = 1 } catch (e) { }
                    return rpcc.end(1)
                }
                """, """
                (s, r) => rpcc.end([({}).then, ({}).stash, Math.stash, [].stash, typeof [].map,
                    Object.getPrototypeOf(function* () {}).stash, 'a-b'.split('-').join('+')].join(','))
                """, ",,,,function,,a+b");
    }

    @Test
    void theSymbolRegistryCarriesNoValue() throws Exception {
        noTrace("(s, r) => { try { Object[Symbol.for('stash')] = 1 } catch (e) { } return rpcc.end(1) }",
                "(s, r) => rpcc.end(String(Object[Symbol.for('stash')]))", "undefined");
    }

    @Test
    void theSymbolRegistryIsEachInvocationsOwn() throws Exception {
        assertEquals("true a undefined true", run("""
                (s, r) => rpcc.end([Symbol.for('a') === Symbol.for('a'), Symbol.keyFor(Symbol.for('a')),
                    String(Symbol.keyFor(Symbol('a'))), Symbol.for('a') !== Symbol('a')].join(' '))
                """));
        // a registered key is not there any more for the next invocation (nor kept by the realm)
        noTrace("(s, r) => { Symbol.for('only-mine'); return rpcc.end(1) }", """
                (s, r) => {
                    const mine = Symbol.for('only-mine');
                    return rpcc.end(String(Symbol.keyFor(mine)) + ' ' + (Symbol.for('only-mine') === mine))
                }
                """, "only-mine true");
        FunctionFailure notASymbol = assertThrows(FunctionFailure.class, () -> run("(s, r) => rpcc.end(Symbol.keyFor('a'))"));
        assertTrue(notASymbol.getMessage().contains("TypeError"), notASymbol.getMessage());
    }

    @Test
    void topLevelDeclarationsAreFreshEachInvocation() throws Exception {
        String counter = "let count = 0;\nfunction bump() { return ++count }\n(s, r) => rpcc.end(bump() + bump());";
        assertEquals(3, ((Number) run(counter)).intValue()); // 1 + 2, each time
        assertEquals(3, ((Number) run(counter)).intValue()); // 1 + 2, each time
        assertEquals("undefined", run("(s, r) => rpcc.end(typeof count + '')"));
    }

    @Test
    void regularExpressionStaticsAreNotKept() throws Exception {
        noTrace("(s, r) => rpcc.end(/(secret)/.exec('a secret')[1])",
                "(s, r) => rpcc.end(String(RegExp.$1 === undefined ? '' : RegExp.$1) + String(RegExp.lastMatch || ''))", "");
    }

    @Test
    void promiseJobsEndWithTheirInvocation() throws Exception {
        noTrace("""
                (s, r) => {
                    Promise.resolve().then(() => { try { globalThis.late = 1 } catch (e) { } });
                    new Promise(() => { }); // never settled
                    (async () => { await null; try { Object.prototype.late = 1 } catch (e) { } })();
                    return rpcc.end(1)
                }
                """, "(s, r) => rpcc.end(typeof late + typeof ({}).late)", "undefinedundefined");
    }

    @Test
    void finalizationCallbacksAreRefused() {
        FunctionFailure f = assertThrows(FunctionFailure.class,
                () -> run("(s, r) => { new FinalizationRegistry(() => { }); return rpcc.end(1) }"));
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
    }

    @Test
    void theRpccObjectCannotBeChangedAndIsTheRunningInvocations() throws Exception {
        noTrace("(s, r) => { try { rpcc.stash = 1 } catch (e) { } return rpcc.end(1) }",
                "(s, r) => rpcc.end(typeof rpcc.stash + ' ' + Object.keys(rpcc).join(','))",
                "undefined call,callThenEnd,end,preturn,console,node,hop,split");
    }

    @Test
    void aCancelledOrFailedInvocationLeavesTheNextOneWhole() throws Exception {
        FunctionFailure cpu = assertThrows(FunctionFailure.class, () -> run("(s, r) => { for (;;) { } }"));
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, cpu.code());
        assertThrows(FunctionFailure.class, () -> run("(s, r) => { throw new Error('plain') }"));
        assertThrows(FunctionFailure.class, () -> run("(s, r) => { Java.type('java.lang.System') }"));
        assertThrows(FunctionFailure.class, () -> run("(s, r) => { const f = () => f(); f() }"));
        assertEquals("r ok", run("(s, r) => rpcc.end(r + ' ok')"));
    }

    @Test
    void frozenIntrinsicsAreFrozen() throws Exception {
        assertEquals("true true true true", run("""
                (s, r) => rpcc.end([Object.isFrozen(globalThis), Object.isFrozen(Object.prototype),
                    Object.isFrozen(Object.getPrototypeOf(async function () {})), Object.isFrozen(Intl)].join(' '))
                """));
    }

    /** Intrinsics that no global leads to, only objects that built-ins make: frozen where they exist. */
    @Test
    void intrinsicsReachedOnlyThroughBuiltInObjectsAreFrozen() throws Exception {
        assertEquals("", run("""
                (s, r) => {
                    const seeds = {
                        arrayIterator: () => Object.getPrototypeOf([].values()),
                        iteratorHelper: () => Object.getPrototypeOf([].values().map(x => x)),
                        wrapForValidIterator: () => Object.getPrototypeOf(Iterator.from({ next() { return { done: true } } })),
                        segments: () => Object.getPrototypeOf(new Intl.Segmenter().segment('a')),
                        segmentIterator: () => Object.getPrototypeOf(new Intl.Segmenter().segment('a')[Symbol.iterator]()),
                        regExpStringIterator: () => Object.getPrototypeOf('a'.matchAll(/a/g)),
                        generator: () => Object.getPrototypeOf(Object.getPrototypeOf((function* () {})())),
                        asyncGenerator: () => Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})())),
                        throwTypeError: () => Object.getOwnPropertyDescriptor(
                            (function () { 'use strict'; return arguments })(), 'callee').get,
                    };
                    const open = [];
                    for (const [name, seed] of Object.entries(seeds)) {
                        let o;
                        try { o = seed() } catch (e) { continue } // not in this GraalJS
                        if (!Object.isFrozen(o)) open.push(name);
                    }
                    return rpcc.end(open.join(','));
                }
                """));
    }

    @Test
    void manyInvocationsRetireRealmsAndStillRun() throws Exception {
        JsFunctionCompiler retiring = new JsFunctionCompiler(SandboxLimits.DEFAULT, true, 100);
        try {
            CompiledFunction f = retiring.compile(ChainingFunctionSource.javascript(
                    "(s, r) => rpcc.end(String(Symbol.for('k') === Symbol.for('k')))"));
            for (int i = 0; i < 250; i++) {
                assertEquals("true", assertInstanceOf(NextHop.End.class, f.invoke(ChainState.empty(), "r")).result());
            }
            assertEquals(3, retiring.realms().made(), "a realm per 100 invocations");
        } finally {
            retiring.close();
        }
    }

    @Test
    void mathRandomIsEachInvocationsOwn() throws Exception {
        // GraalJS's Math.random keeps its generator in the realm: one invocation could read another's
        // draws off it, or predict them. A reused realm draws from the running invocation's own generator.
        String draw = "(s, r) => rpcc.end([Math.random(), Math.random(), Math.random(), Math.random()].join(','))";
        Object first = run(draw);
        Object second = run(draw);
        assertNotEquals(first, second);
        for (Object draws : List.of(first, second)) {
            for (String d : ((String) draws).split(",")) {
                double v = Double.parseDouble(d);
                assertTrue(v >= 0 && v < 1, d);
            }
        }
        assertEquals("false", run("(s, r) => rpcc.end(String(Math.random.toString().includes('native code')))"));
        noTrace("(s, r) => { try { Math.random = () => 0.5 } catch (e) { } return rpcc.end(1) }",
                "(s, r) => rpcc.end(String(Math.random() !== 0.5 && Math.random() !== Math.random()))", "true");
        Invocation a = new Invocation(SandboxLimits.DEFAULT);
        Invocation b = new Invocation(SandboxLimits.DEFAULT);
        assertNotEquals(a.random(), b.random()); // seeded apart
    }

    @Test
    void weakRefsCarryNothingToTheNextInvocation() throws Exception {
        noTrace("""
                (s, r) => {
                    const kept = new WeakRef({ secret: 1 });
                    try { globalThis.kept = kept } catch (e) { }
                    try { WeakRef.prototype.kept = kept } catch (e) { }
                    try { Object.prototype.kept = kept } catch (e) { }
                    return rpcc.end(1)
                }
                """, "(s, r) => rpcc.end(typeof kept + typeof WeakRef.prototype.kept + typeof ({}).kept)",
                "undefinedundefinedundefined");
    }

    @Test
    void timersAreRefusedAndPendingJobsDoNotOutliveTheInvocation() throws Exception {
        for (String timer : List.of("setTimeout", "setInterval")) {
            FunctionFailure f = assertThrows(FunctionFailure.class,
                    () -> run("(s, r) => { " + timer + "(() => { globalThis.late = 1 }, 0); return rpcc.end(1) }"));
            assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
        }
        noTrace("""
                (s, r) => {
                    let release;
                    const gate = new Promise(resolve => { release = resolve });
                    (async () => { await gate; try { Object.prototype.late = 1 } catch (e) { } })();
                    try { Promise.prototype.release = release } catch (e) { }
                    return rpcc.end(1)
                }
                """, """
                (s, r) => {
                    if (typeof Promise.prototype.release === 'function') Promise.prototype.release();
                    return rpcc.end(typeof Promise.prototype.release + typeof ({}).late)
                }
                """, "undefinedundefined");
    }

    @Test
    void theRpccObjectOfAFinishedInvocationIsNotReachable() throws Exception {
        noTrace("""
                (s, r) => {
                    const mine = rpcc;
                    try { Object.prototype.mine = () => mine.end('stale') } catch (e) { }
                    try { globalThis.mine = mine } catch (e) { }
                    return rpcc.end(1)
                }
                """, "(s, r) => rpcc.end(typeof ({}).mine + typeof mine)", "undefinedundefined");
    }

    @Test
    void aRealmThatHitALimitOrBrokeARuleIsNeverReused() throws Exception {
        JsFunctionCompiler own = new JsFunctionCompiler(SandboxLimits.DEFAULT, true);
        try {
            JsRealmPool pool = own.realms();
            String plain = "(s, r) => rpcc.end(r + ' ok')";
            NextHop.End done = assertInstanceOf(NextHop.End.class,
                    own.compile(ChainingFunctionSource.javascript(plain)).invoke(ChainState.empty(), "r"));
            assertEquals("r ok", done.result());
            long made = pool.made();
            own.compile(ChainingFunctionSource.javascript(plain)).invoke(ChainState.empty(), "r");
            assertEquals(made, pool.made(), "a clean invocation gives its realm back");
            List<String> breaking = List.of(
                    "(s, r) => { for (;;) { } }", // cpu-time
                    "(s, r) => { const a = []; for (;;) { a.push({ n: a.length, s: 'x' + a.length }) } }", // memory
                    "(s, r) => { try { Java.type('java.lang.System') } catch (e) { } return rpcc.end(1) }", // caught rule
                    "(s, r) => { const f = () => f(); return f() }"); // stack depth
            for (String bad : breaking) {
                assertThrows(FunctionFailure.class,
                        () -> own.compile(ChainingFunctionSource.javascript(bad)).invoke(ChainState.empty(), "r"), bad);
                long before = pool.made();
                done = assertInstanceOf(NextHop.End.class,
                        own.compile(ChainingFunctionSource.javascript(plain)).invoke(ChainState.empty(), "r"));
                assertEquals("r ok", done.result());
                assertEquals(before + 1, pool.made(), () -> "the realm that ran " + bad + " was not discarded");
            }
        } finally {
            own.close();
        }
    }

    @Test
    void anInvocationOnAVirtualThreadIsHandedOffAndWatchedAllTheSame() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Object> ok = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> stopped = new java.util.concurrent.atomic.AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try {
                ok.set(run("(s, r) => rpcc.end(r + ' ok')"));
                run("(s, r) => { for (;;) { } }");
            } catch (Throwable t) {
                stopped.set(t);
            }
        }).join();
        assertEquals("r ok", ok.get());
        FunctionFailure f = assertInstanceOf(FunctionFailure.class, stopped.get());
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
        assertTrue(f.getMessage().contains("cpu-time"), f.getMessage());
        assertEquals("r ok", run("(s, r) => rpcc.end(r + ' ok')")); // and on this platform thread, a whole realm
    }
}
