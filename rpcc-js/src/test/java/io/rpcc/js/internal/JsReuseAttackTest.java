package io.rpcc.js.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.FunctionFailure;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of reused JavaScript contexts (issue 27): each test runs the same attacker
 * twice (or a writer then a reader) in one realm and checks the second run sees nothing of the first.
 */
class JsReuseAttackTest extends ReusedRealmTests {
    static Object runOrRefused(String source) throws Exception {
        try {
            return run(source);
        } catch (FunctionFailure f) {
            return "refused:" + f.code();
        }
    }

    /** The same counter function twice: the second must count 1 again. */
    static void counterIsFresh(String counter) throws Exception {
        Object first = runOrRefused(counter);
        Object second = runOrRefused(counter);
        assertEquals(first, second, () -> "state carried across invocations by " + counter);
    }

    @Test
    void theFactoryReachedThroughArgumentsCalleeKeepsNoState() throws Exception {
        counterIsFresh("((c) => (s, r) => { try { c.n = (c.n || 0) + 1 } catch (e) { return rpcc.end('frozen') } return rpcc.end(String(c.n)) })(arguments.callee)");
    }

    @Test
    void theFactorysPrototypeKeepsNoState() throws Exception {
        counterIsFresh("((p) => (s, r) => { try { p.n = (p.n || 0) + 1 } catch (e) { return rpcc.end('frozen') } return rpcc.end(String(p.n)) })(arguments.callee.prototype)");
    }

    @Test
    void theStatementEvaluatorReachedThroughArgumentsCalleeKeepsNoState() throws Exception {
        counterIsFresh("""
                const c = arguments.callee;
                try { c.n = (c.n || 0) + 1 } catch (e) { c.n = 'frozen' }
                const seen = String(c.n);
                (s, r) => rpcc.end(seen);
                """);
    }

    @Test
    void indirectEvalAndFunctionThisReachOnlyTheFrozenGlobal() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    const g1 = (0, eval)('this'), g2 = Function('return this')();
                    try { g1.n = (g1.n || 0) + 1 } catch (e) { }
                    try { g2.m = (g2.m || 0) + 1 } catch (e) { }
                    try { (0, eval)('var q = (typeof q === "number" ? q : 0) + 1') } catch (e) { }
                    return rpcc.end([g1 === globalThis, g2 === globalThis, String(g1.n), String(g2.m), typeof q].join(','))
                }
                """);
    }

    @Test
    void prototypeTricksKeepNoState() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    const out = [];
                    const tries = [
                        () => { Object.prototype.__proto__ = { n: 1 } },
                        () => { ({}).__proto__.n = 1 },
                        () => { Function.prototype.constructor.n = 1 },
                        () => { (function () {}).constructor.prototype.n = 1 },
                        () => { (async () => {}).constructor.n = 1 },
                        () => { (function* () {}).constructor.prototype.n = 1 },
                        () => { Error.prepareStackTrace = () => 'x'; },
                        () => { Error.captureStackTrace.n = 1 },
                        () => { Array[Symbol.species].n = 1 },
                        () => { /a/.constructor.n = 1 },
                        () => { Object.getOwnPropertyDescriptor(Object.prototype, '__proto__').get.n = 1 },
                        () => { Reflect.n = 1 },
                        () => { JSON.n = 1 },
                        () => { Atomics.n = 1 },
                        () => { Intl.DateTimeFormat.prototype.n = 1 },
                        () => { new Intl.NumberFormat().constructor.n = 1 },
                        () => { Object.getPrototypeOf(new Intl.Collator().compare).n = 1 },
                        () => { new Intl.Collator().compare.n = 1 },
                        () => { Object.getPrototypeOf(Promise.resolve()).n = 1 },
                        () => { Object.getPrototypeOf(new Proxy({}, {})).n = 1 },
                        () => { Object.getPrototypeOf(new WeakRef({})).n = 1 },
                        () => { Object.getPrototypeOf(new SharedArrayBuffer(8)).n = 1 },
                        () => { Object.getPrototypeOf(Object.getPrototypeOf(new Uint8Array(1))).n = 1 },
                        () => { Object.getPrototypeOf(new Date()).n = 1 },
                        () => { Object.getPrototypeOf(/a/[Symbol.matchAll]('a')).n = 1 },
                    ];
                    for (const t of tries) { try { t() } catch (e) { } }
                    const reads = [({}).n, Function.n, Function.prototype.n, Error.prepareStackTrace, Array.n,
                        RegExp.n, Reflect.n, JSON.n, Atomics.n, Intl.DateTimeFormat.prototype.n, Intl.NumberFormat.n,
                        new Intl.Collator().compare.n, Promise.prototype.n, WeakRef.prototype.n,
                        SharedArrayBuffer.prototype.n, Date.prototype.n];
                    return rpcc.end(reads.map(String).join(','))
                }
                """);
    }

    @Test
    void anIntlBoundCompareIsFrozenOrFresh() throws Exception {
        // Intl.Collator.prototype.compare is a getter that caches a bound function per collator:
        // a collator is fresh per invocation, so its bound compare is too
        counterIsFresh("""
                (s, r) => {
                    const f = Intl.Collator.prototype;
                    const d = Object.getOwnPropertyDescriptor(f, 'compare');
                    try { d.get.n = (d.get.n || 0) + 1 } catch (e) { }
                    return rpcc.end(String(d.get.n))
                }
                """);
    }

    @Test
    void lastIndexAndRegExpLiteralsAreFreshEachInvocation() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    const re = /a/g;
                    re.exec('aaaa');
                    return rpcc.end(String(re.lastIndex) + String(RegExp.lastMatch) + String(RegExp.input))
                }
                """);
    }

    @Test
    void aTopLevelRegExpLiteralInStatementsIsFresh() throws Exception {
        counterIsFresh("""
                const re = /a/g;
                re.exec('aaaa');
                (s, r) => rpcc.end(String(re.lastIndex));
                """);
    }

    @Test
    void aTemplateObjectCannotCarryState() throws Exception {
        // tagged template objects are cached per site (per parse): frozen by the language
        counterIsFresh("""
                (s, r) => {
                    const t = (x => x)`a`;
                    try { t.n = (t.n || 0) + 1 } catch (e) { }
                    try { t.raw.n = (t.raw.n || 0) + 1 } catch (e) { }
                    return rpcc.end(String(t.n) + String(t.raw.n) + Object.isFrozen(t))
                }
                """);
    }

    @Test
    void generatorsAsyncAndMicrotasksDoNotReachTheNextInvocation() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    let n = 0;
                    const gen = (function* () { for (;;) { n++; yield n } })();
                    gen.next();
                    (async () => { for (let i = 0; i < 1000; i++) await null; n = 99 })();
                    return rpcc.end(String(n))
                }
                """);
    }

    @Test
    void jsonReviverAndWeakRefsCarryNothing() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    let kept = 0;
                    JSON.parse('{"a":[1,2,{"b":3}]}', (k, v) => { kept++; return v });
                    const wr = new WeakRef({});
                    return rpcc.end(String(kept) + String(typeof wr.deref()))
                }
                """);
    }

    static void refusedThenWhole(String hostile) throws Exception {
        long t0 = System.nanoTime();
        FunctionFailure f = assertThrows(FunctionFailure.class, () -> run(hostile), hostile);
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code(), () -> hostile + ": " + f.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "stopped late: " + hostile);
        assertEquals("r ok", run("(s, r) => rpcc.end(r + ' ok')"));
    }

    @Test
    void aLoopThatCatchesItsCancellationIsStopped() throws Exception {
        refusedThenWhole("(s, r) => { for (;;) { try { for (;;) { } } catch (e) { } finally { continue } } }");
    }

    @Test
    void aGetterInTheResultThatNeverReturnsIsStopped() throws Exception {
        refusedThenWhole("(s, r) => rpcc.end({ get x() { for (;;) { } } })");
    }

    @Test
    void aReturnedProxyThatNeverAnswersIsStopped() throws Exception {
        // not a hop: the engine describes it in the error, and none of its traps may run unwatched
        RuntimeException f = assertThrows(RuntimeException.class,
                () -> run("(s, r) => new Proxy({}, { get() { for (;;) { } }, ownKeys() { for (;;) { } }, getPrototypeOf() { for (;;) { } } })"));
        assertTrue(f instanceof FunctionFailure ff && ff.code() == ChainErrorCode.SANDBOX_VIOLATION
                || f instanceof IllegalArgumentException && f.getMessage().contains("must return"), f.toString());
        assertEquals("r ok", run("(s, r) => rpcc.end(r + ' ok')"));
    }

    @Test
    void aFunctionInTheResultDoesNotRunLater() throws Exception {
        Object out = runOrRefused("(s, r) => rpcc.end({ f: () => { for (;;) { } }, toString() { for (;;) { } } })");
        assertEquals("r ok", run("(s, r) => rpcc.end(r + ' ok')"), String.valueOf(out));
    }

    @Test
    void aHugeAllocationRightAtTheEndIsCounted() throws Exception {
        refusedThenWhole("(s, r) => { let a = []; for (let i = 0; i < 40; i++) a.push(new Array(1 << 20).fill(i)); a = null; return rpcc.end(1) }");
    }

    @Test
    void aHostileInvocationOnOnePlatformThreadLeavesAnotherRunning() throws Exception {
        AtomicReference<Throwable> hostile = new AtomicReference<>();
        AtomicInteger fine = new AtomicInteger();
        AtomicReference<Throwable> wrong = new AtomicReference<>();
        Thread bad = Thread.ofPlatform().start(() -> {
            try {
                run("(s, r) => { for (;;) { } }");
            } catch (Throwable t) {
                hostile.set(t);
            }
        });
        Thread good = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < 50; i++) {
                    if ("r ok".equals(run("(s, r) => rpcc.end(r + ' ok')"))) {
                        fine.incrementAndGet();
                    }
                }
            } catch (Throwable t) {
                wrong.set(t);
            }
        });
        bad.join(60_000);
        good.join(60_000);
        assertEquals(null, wrong.get());
        assertEquals(50, fine.get());
        FunctionFailure f = assertInstanceOf(FunctionFailure.class, hostile.get());
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
    }

    @Test
    void aLongLoopOnAVirtualThreadIsStopped() throws Exception {
        AtomicReference<Throwable> stopped = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try {
                run("(s, r) => { const a = []; for (;;) { a.push('x'.repeat(100)) } }");
            } catch (Throwable t) {
                stopped.set(t);
            }
        }).join(60_000);
        FunctionFailure f = assertInstanceOf(FunctionFailure.class, stopped.get());
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
        assertEquals("r ok", run("(s, r) => rpcc.end(r + ' ok')"));
    }

    @Test
    void stubsAndTheRpccFunctionsKeepNoState() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    const out = [];
                    for (const [name, o] of [['Java', () => Java], ['setTimeout', () => setTimeout],
                            ['end', () => rpcc.end], ['console', () => rpcc.console]]) {
                        try { const v = o(); v.n = (v.n || 0) + 1; out.push(name + v.n) } catch (e) { out.push(name + '-') }
                    }
                    return rpcc.end(out.join(','))
                }
                """);
    }

    @Test
    void theStateObjectHandedInIsFreshEachInvocation() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    try { Object.getPrototypeOf(s).n = (Object.getPrototypeOf(s).n || 0) + 1 } catch (e) { }
                    try { s.constructor.n = (s.constructor.n || 0) + 1 } catch (e) { }
                    return rpcc.end(String(Object.getPrototypeOf(s) && Object.getPrototypeOf(s).n) + String(s.constructor && s.constructor.n))
                }
                """);
    }

    @Test
    void thePrototypesOfHostValuesKeepNoState() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    const out = [];
                    const values = [s, r, rpcc, rpcc.end, rpcc.console, Java, setTimeout, Object.keys(rpcc)];
                    for (const v of values) {
                        let p;
                        try { p = Object.getPrototypeOf(v) } catch (e) { out.push('-'); continue }
                        if (p === null) { out.push('null'); continue }
                        try { p.n = (p.n || 0) + 1 } catch (e) { }
                        out.push(String(p.n));
                    }
                    return rpcc.end(out.join(','))
                }
                """);
    }

    @Test
    void theErrorsThatRpccsFunctionsThrowKeepNoState() throws Exception {
        counterIsFresh("""
                (s, r) => {
                    const out = [];
                    for (const bad of [() => rpcc.call(), () => rpcc.end(), () => rpcc.split(1), () => rpcc.console()]) {
                        try { bad() } catch (e) {
                            try { e.n = 1 } catch (x) { }
                            const p = e !== null && typeof e === 'object' ? Object.getPrototypeOf(e) : null;
                            if (p === null) { out.push('null'); continue }
                            try { p.n = (p.n || 0) + 1 } catch (x) { }
                            out.push(String(p.n));
                        }
                    }
                    return rpcc.end(out.join(','))
                }
                """);
    }

    /**
     * A sweep rather than one trick: marks every object it can reach without calling anything
     * (own properties' values and accessors, prototypes) from the global object, the values it is
     * handed, the factory, and objects that built-ins make, and reports any that a previous
     * invocation marked already (an object shared by invocations that is not frozen).
     */
    @Test
    void noObjectReachableFromAnInvocationIsSharedAndWritable() throws Exception {
        String sweep = """
                (s, r) => {
                    const skip = new Set(['Java', 'Packages', 'java', 'javax', 'JavaImporter', 'importClass',
                        'importPackage', 'Polyglot', 'Graal', 'load', 'loadWithNewGlobal', 'print', 'printErr', 'read',
                        'readFully', 'readbuffer', 'readline', 'quit', 'exit', 'require', 'process', 'Worker',
                        'SharedArrayBuffer', 'Atomics', 'setTimeout', 'setInterval', 'FinalizationRegistry']);
                    const seen = new Set(), todo = [], shared = [];
                    const add = (v, path) => {
                        if (((typeof v === 'object' && v !== null) || typeof v === 'function') && !seen.has(v)) {
                            seen.add(v);
                            todo.push([v, path]);
                        }
                    };
                    add(globalThis, 'globalThis'); add(s, 's'); add(r, 'r'); add(rpcc.end, 'rpcc.end');
                    add(rpcc.call, 'rpcc.call'); add(rpcc.split, 'rpcc.split');
                    try { rpcc.call() } catch (e) { add(e, 'hostError') }
                    try { add(arguments.callee, 'factory') } catch (e) { } // the factory's arguments
                    const made = {
                        arrayIter: () => [].values(), mapIter: () => new Map().entries(), setIter: () => new Set().values(),
                        strIter: () => ''[Symbol.iterator](), matchAll: () => 'a'.matchAll(/a/g),
                        gen: () => (function* () {})(), agen: () => (async function* () {})(),
                        promise: () => Promise.resolve(), withResolvers: () => Promise.withResolvers(),
                        revocable: () => Proxy.revocable({}, {}), segments: () => new Intl.Segmenter().segment('ab'),
                        segIter: () => new Intl.Segmenter().segment('ab')[Symbol.iterator](),
                        collator: () => new Intl.Collator(), nf: () => new Intl.NumberFormat(), dtf: () => new Intl.DateTimeFormat(),
                        plural: () => new Intl.PluralRules(), rtf: () => new Intl.RelativeTimeFormat(), list: () => new Intl.ListFormat(),
                        locale: () => new Intl.Locale('en'), display: () => new Intl.DisplayNames('en', { type: 'region' }),
                        regexpExec: () => /(?<a>a)/d.exec('a'), template: () => (x => x)`t`,
                        args: function () { return arguments }, bound: () => (() => 1).bind(null),
                        weakref: () => new WeakRef({}), dataview: () => new DataView(new ArrayBuffer(1)),
                        typed: () => new Float64Array(1), date: () => new Date(0), error: () => new TypeError('x'),
                        agg: () => new AggregateError([]), iterFrom: () => Iterator.from({ next() { return { done: true } } }),
                        helper: () => [].values().map(x => x), dispose: () => new DisposableStack(),
                        asyncFn: () => (async () => {}), genFn: () => (function* () {}), cls: () => class {},
                    };
                    for (const k of Object.keys(made)) {
                        try { add(made[k](), k) } catch (e) { }
                    }
                    let budget = 200000;
                    while (todo.length > 0 && budget-- > 0) {
                        const [o, path] = todo.pop();
                        if (!Object.isFrozen(o)) {
                            let had = false;
                            try { had = Object.prototype.hasOwnProperty.call(o, 'rpccSweepMark') } catch (e) { }
                            if (had) shared.push(path);
                            try { Object.defineProperty(o, 'rpccSweepMark', { value: 1 }) } catch (e) { }
                        }
                        let keys = [];
                        try { keys = Reflect.ownKeys(o) } catch (e) { }
                        for (const k of keys) {
                            if (o === globalThis && skip.has(k)) continue;
                            let d;
                            try { d = Object.getOwnPropertyDescriptor(o, k) } catch (e) { continue }
                            if (!d) continue;
                            const name = path + '.' + String(k);
                            add(d.value, name); add(d.get, name + '<get>'); add(d.set, name + '<set>');
                        }
                        try { add(Object.getPrototypeOf(o), path + '.__proto__') } catch (e) { }
                    }
                    return rpcc.end(shared.sort().join(' ') + (todo.length ? ' (budget ran out)' : ''))
                }
                """;
        // the sweep walks every built-in: more than the default budget on a cold engine
        JsFunctionCompiler roomy = new JsFunctionCompiler(new SandboxLimits(java.time.Duration.ofSeconds(30),
                4L << 30, java.time.Duration.ofSeconds(60)), true);
        try {
            java.util.function.Function<String, Object> runRoomy = src -> {
                try {
                    return assertInstanceOf(NextHop.End.class,
                            roomy.compile(ChainingFunctionSource.javascript(src)).invoke(ChainState.empty(), "r")).result();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            runRoomy.apply(sweep);
            long made = roomy.realms().made();
            assertEquals("", runRoomy.apply(sweep));
            assertEquals("", runRoomy.apply("/* another function */ " + sweep));
            assertEquals(made, roomy.realms().made(), "the sweeps ran in one realm");
        } finally {
            roomy.close();
        }
    }
}
