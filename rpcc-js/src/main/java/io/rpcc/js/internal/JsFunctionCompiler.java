package io.rpcc.js.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException.Diagnostic;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.spi.FunctionCompiler;
import io.rpcc.core.spi.FunctionFailure;
import io.rpcc.core.spi.FunctionText;
import io.rpcc.core.spi.MonitoredExecution;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.SourceSection;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JavaScript chaining functions on GraalJS. A source is parsed once (syntax errors come back with
 * line and column); every invocation gets a fresh context from one shared {@link Engine} (which
 * caches the parsed code, and holds no JavaScript objects: nothing one function does is seen by
 * the next). Parsing and every invocation run under the node's {@link SandboxLimits}, watched from
 * outside by {@link MonitoredExecution}, which cancels the context; everything of the function's
 * runs inside that window (its promise jobs too, which GraalJS runs before {@code execute}
 * returns), and what it leaves behind is Java values only, with messages bounded in size.
 *
 * <p>The context denies everything explicitly: no host access (JavaScript sees Java values only
 * through rpcc's read-only views), no class lookup or loading, no I/O, threads, processes, native
 * code, environment or polyglot access; the globals that would reach for them are removed and
 * stand-ins ({@link Tripwire}) name the rule. Time zone (UTC) and locale (en-US) are fixed, so a
 * function neither reads the host's nor behaves differently from server to server. Under limits,
 * single built-in calls cannot allocate far past the memory limit: strings, typed arrays and
 * {@code apply} argument lists are capped by GraalJS options, and {@code split('')} by a check
 * that runs before it; the watcher catches everything that grows step by step.
 *
 * <p>(This is GraalJS's {@code TRUSTED} policy with every permission turned off by hand, rather
 * than its {@code CONSTRAINED} policy: the latter forbids the size and time-zone options above.)
 *
 * <p>On a stock JDK GraalJS runs in its interpreter (no JIT compilation of JavaScript); rpcc says so
 * once in the log and turns off Truffle's own warning about it.
 */
final class JsFunctionCompiler implements FunctionCompiler {
    private static final Logger log = LoggerFactory.getLogger(JsFunctionCompiler.class);
    private static volatile Engine engine;

    /**
     * The longest source accepted, in chars. GraalJS's parser is superlinear on some invalid input
     * (each of many redeclarations reports the whole line), so size is bounded as well as time.
     */
    static final int MAX_SOURCE_CHARS = 32 * 1024;
    private static final int MAX_TRACE_LINES = 12;

    /** Globals the sandbox removes, each with the rule its use breaks. */
    private static final Map<String, String> TRIPWIRES = Map.ofEntries(
            Map.entry("Java", "host-access"), Map.entry("Packages", "host-access"), Map.entry("java", "host-access"),
            Map.entry("javax", "host-access"), Map.entry("JavaImporter", "host-access"),
            Map.entry("importClass", "host-access"), Map.entry("importPackage", "host-access"),
            Map.entry("Polyglot", "polyglot"), Map.entry("Graal", "environment"), Map.entry("load", "files"),
            Map.entry("loadWithNewGlobal", "files"), Map.entry("print", "files"), Map.entry("printErr", "files"),
            Map.entry("read", "files"), Map.entry("readFully", "files"), Map.entry("readbuffer", "files"),
            Map.entry("readline", "files"), Map.entry("quit", "exit"), Map.entry("exit", "exit"),
            Map.entry("require", "class-loading"), Map.entry("process", "environment"),
            Map.entry("Worker", "threads"), Map.entry("SharedArrayBuffer", "threads"), Map.entry("Atomics", "threads"),
            Map.entry("setTimeout", "threads"), Map.entry("setInterval", "threads"));

    /** Reused contexts per compiler, at most (each holds a realm of a few megabytes). */
    static final int MAX_REALMS = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

    private final SandboxLimits limits;
    private final Source prologue;
    /** The reused contexts, or null: a fresh context per invocation (the default). */
    private final JsRealmPool realms;

    JsFunctionCompiler(SandboxLimits limits) {
        this(limits, false);
    }

    /**
     * A compiler under {@code limits} (null: no sandbox); {@code reuseContexts}: invocations run in
     * reused, locked-down contexts ({@link JsRealm}) instead of a fresh context each.
     */
    JsFunctionCompiler(SandboxLimits limits, boolean reuseContexts) {
        this(limits, reuseContexts, JsRealm.MAX_USES);
    }

    /** As above, with reused contexts retired after {@code maxUses} invocations each. */
    JsFunctionCompiler(SandboxLimits limits, boolean reuseContexts, int maxUses) {
        this.limits = limits;
        long maxSplit = limits == null ? Integer.MAX_VALUE : Math.max(1024, limits.allocatedBytes() / 64);
        // split makes one string per piece in a single built-in call, out of the watcher's reach. On a
        // string over max chars with no limit under max, a string separator (whatever object gives it)
        // is counted first, '' refused; a regular expression (RegExp.prototype[Symbol.split], however it
        // is reached: it may match the empty string) needs a limit. Every conversion of the function's
        // values (this, separator, limit, Symbol.split) happens once, and the built-in gets the result.
        this.prologue = Source.newBuilder("js", """
                (() => {
                    'use strict';
                    const split = String.prototype.split, regexSplit = RegExp.prototype[Symbol.split];
                    const apply = Reflect.apply, indexOf = String.prototype.indexOf, max = %d;
                    const refuse = (what, length) => {
                        throw new RangeError('Invalid array length: ' + what + ' of ' + length
                            + ' characters, over the limit of ' + max + ' pieces; pass a limit');
                    };
                    const unbounded = (s, lim) => s.length > max && (lim === undefined || lim > max);
                    const guarded = {split(separator, limit) {
                        if (this === null || this === undefined) {
                            return apply(split, this, [separator, limit]); // a TypeError
                        }
                        if (separator !== null && separator !== undefined) {
                            const splitter = separator[Symbol.split];
                            if (splitter !== undefined && splitter !== null) {
                                return apply(splitter, separator, [this, limit]);
                            }
                        }
                        const s = `${this}`;
                        const lim = limit === undefined ? undefined : limit >>> 0;
                        const sep = separator === undefined ? undefined : `${separator}`;
                        if (sep !== undefined && unbounded(s, lim)) {
                            if (sep === '') {
                                refuse("split('')", s.length);
                            }
                            let pieces = 1;
                            for (let i = apply(indexOf, s, [sep]); i >= 0; i = apply(indexOf, s, [sep, i + sep.length])) {
                                if (++pieces > max) {
                                    refuse('split', s.length);
                                }
                            }
                        }
                        return apply(split, s, [sep, lim]);
                    }}.split;
                    const guardedRegex = {[Symbol.split](string, limit) {
                        const s = `${string}`;
                        const lim = limit === undefined ? undefined : limit >>> 0;
                        if (unbounded(s, lim)) {
                            refuse('split by a regular expression', s.length);
                        }
                        return apply(regexSplit, this, [s, lim]);
                    }}[Symbol.split];
                    Object.defineProperty(String.prototype, 'split', {value: guarded, writable: true, configurable: true});
                    Object.defineProperty(RegExp.prototype, Symbol.split, {value: guardedRegex, writable: true,
                        configurable: true});
                })();
                """.formatted(maxSplit), "rpcc-prologue.js").buildLiteral();
        Source guards = prologue;
        this.realms = reuseContexts ? new JsRealmPool(MAX_REALMS,
                () -> new JsRealm(newContext(engine(), limits, true), guards, TRIPWIRES, maxUses)) : null;
    }

    static Engine engine() {
        Engine e = engine;
        if (e == null) {
            synchronized (JsFunctionCompiler.class) {
                e = engine;
                if (e == null) {
                    e = Engine.newBuilder("js")
                            .out(OutputStream.nullOutputStream())
                            .err(OutputStream.nullOutputStream())
                            .option("engine.WarnInterpreterOnly", "false")
                            .build();
                    // Loading the language and its locale data costs a second or two of CPU once per JVM:
                    // not the budget of the first function that happens to use them.
                    try (Context warm = newContext(e, null, false)) {
                        warm.eval("js", "new Intl.DateTimeFormat().format(0) + new Intl.NumberFormat().format(0)");
                    }
                    log.info("GraalJS loaded for JavaScript chaining functions; on a stock JDK it runs in its "
                            + "interpreter, without JIT compilation (run on GraalVM for compiled JavaScript)");
                    engine = e;
                }
            }
        }
        return e;
    }

    private static Context newContext(Engine engine, SandboxLimits limits, boolean reused) {
        Context.Builder b = Context.newBuilder("js")
                .engine(engine)
                .allowHostAccess(HostAccess.NONE)
                .allowHostClassLookup(name -> false)
                .allowHostClassLoading(false)
                .allowIO(IOAccess.NONE)
                .allowCreateThread(false)
                .allowCreateProcess(false)
                .allowNativeAccess(false)
                .allowEnvironmentAccess(EnvironmentAccess.NONE)
                .allowPolyglotAccess(PolyglotAccess.NONE)
                .allowInnerContextOptions(false)
                .allowValueSharing(false)
                .in(InputStream.nullInputStream())
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .allowExperimentalOptions(true)
                .option("js.java-package-globals", "false")
                .option("js.polyglot-builtin", "false")
                .option("js.graal-builtin", "false")
                .option("js.load", "false")
                .option("js.print", "false")
                .option("js.shared-array-buffer", "false")
                .option("js.atomics", "false")
                .option("js.timezone", "UTC")
                .option("js.locale", "en-US");
        if (reused) {
            b.option("js.regexp-static-result", "false"); // RegExp.$1 & co.: state that every match leaves behind
        }
        if (limits != null) {
            long bytes = limits.allocatedBytes();
            b.option("js.string-length-limit", String.valueOf(clamp(bytes / 2, 1 << 16, 1_073_741_799)))
                    .option("js.max-typed-array-length", String.valueOf(clamp(bytes / 8, 1 << 13, 2_147_483_639)))
                    .option("js.max-apply-argument-length", String.valueOf(clamp(bytes / 32, 1 << 12, 10_000_000)));
        }
        return b.build();
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }

    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JS;
    }

    @Override
    public int maxSourceChars() {
        return MAX_SOURCE_CHARS;
    }

    @Override
    public CompiledFunction compile(ChainingFunctionSource source) {
        String id = FunctionText.shortId(source);
        Source js = Source.newBuilder("js", source.source(), "chaining-function.js").buildLiteral();
        Engine e = engine();
        Invocation parse = new Invocation(limits);
        try {
            // on a watched thread of its own: a parser on hostile input reaches no safepoint for long, and the
            // compile is abandoned at its limit rather than waited for
            handedOff(parse, () -> {
                try (Context cx = newContext(e, limits, false)) {
                    parse.attach(cx);
                    cx.parse(js);
                }
                return null;
            });
        } catch (PolyglotException x) {
            if (x.isSyntaxError()) {
                SourceSection at = x.getSourceLocation();
                Diagnostic error = new Diagnostic(at == null ? 0 : at.getStartLine(), at == null ? 0 : at.getStartColumn(),
                        FunctionText.bounded(x.getMessage()));
                throw FunctionFailure.compileErrors("JavaScript chaining function (" + id + ") does not parse: " + error,
                        List.of(error));
            }
            if (x.isResourceExhausted()) {
                throw FunctionFailure.compile("JavaScript chaining function (" + id
                        + ") nests too deeply to parse: " + FunctionText.bounded(x.getMessage()));
            }
            throw FunctionFailure.compile("JavaScript chaining function (" + id
                    + ") cannot be parsed: " + FunctionText.bounded(x.getMessage()));
        }
        return new CompiledFunction() {
            @Override
            public ChainingFunctionSource source() {
                return source;
            }

            @Override
            public NextHop invoke(ChainState state, Object result) throws Exception {
                return invoke(state, result, null);
            }

            @Override
            public NextHop invoke(ChainState state, Object result, Consumer<FunctionFailure> onAbandon) throws Exception {
                Invocation invocation = new Invocation(limits);
                if (realms == null) {
                    return monitored(invocation, onAbandon, () -> run(e, js, state, result, invocation));
                }
                // made (if need be) outside the function's budget: locking a realm down is rpcc's work
                JsRealm realm = realms.take();
                AtomicBoolean claimed = new AtomicBoolean();
                try {
                    return monitored(invocation, onAbandon, () -> claimed.compareAndSet(false, true)
                            ? runReused(realm, source, state, result, invocation)
                            : null);
                } finally {
                    if (claimed.compareAndSet(false, true)) {
                        realms.discard(realm); // the task never started
                    }
                }
            }
        };
    }

    /**
     * Under limits, yes: an invocation on a platform thread is watched where it runs ({@link JsWatchdog}),
     * while one on a virtual thread moves to a platform thread and back.
     */
    @Override
    public boolean prefersPlatformThread() {
        return limits != null;
    }

    /** The reused contexts, or null (a fresh context per invocation). */
    JsRealmPool realms() {
        return realms;
    }

    @Override
    public void close() {
        if (realms != null) {
            realms.clear();
        }
    }

    private NextHop runReused(JsRealm realm, ChainingFunctionSource source, ChainState state, Object result,
                              Invocation invocation) {
        boolean clean = false;
        try {
            invocation.attach(realm.context());
            realm.bind(invocation, ChainContext.currentOrNull());
            Value fn = realm.freshFunction(source.id(), source.source());
            clean = true; // from here on, what fails is the function's (a plain error leaves the realm whole)
            return call(fn, state, result, invocation);
        } catch (PolyglotException x) {
            clean = x.isGuestException() && !x.isInternalError() && !x.isCancelled() && !x.isResourceExhausted()
                    && !x.isExit() && !x.isInterrupted() && !x.isHostException();
            invocation.throwIfRefused();
            RuntimeException failure = translate(x);
            clean &= !(failure instanceof FunctionFailure f && f.code() == io.rpcc.core.ChainErrorCode.SANDBOX_VIOLATION);
            throw failure;
        } finally {
            boolean whole = invocation.detach();
            realms.giveBack(realm, clean && whole && !invocation.refusedAny());
        }
    }

    /** Calls the function {@code fn} of an invocation and turns what it returned into the next hop. */
    private static NextHop call(Value fn, ChainState state, Object result, Invocation invocation) {
        if (!fn.canExecute()) {
            throw FunctionFailure.compile("a JavaScript chaining function must evaluate "
                    + "to a function (state, result) => nextHop, got " + FunctionText.bounded(fn.toString()));
        }
        Value out = fn.execute(JsValues.toGuest(state, invocation), JsValues.toGuest(result, invocation));
        invocation.throwIfRefused();
        if (out.isProxyObject() && out.asProxyObject() instanceof RpccGlobal.HopView hop) {
            return hop.hop();
        }
        if (out.isNull()) {
            return null; // reported as "returned null" by the runtime
        }
        throw new IllegalArgumentException("a JavaScript chaining function must return rpcc.call(...), "
                + "rpcc.callThenEnd(...) or rpcc.end(...), got " + FunctionText.bounded(out.toString()));
    }

    /**
     * Runs {@code task} within the limits (if any), cancelled through {@code invocation}: on the
     * current thread, watched by {@link JsWatchdog}, if it is a platform thread (the JVM measures CPU
     * time and allocation only for those); handed to one of rpcc's sandbox threads otherwise.
     * {@code onAbandon} (may be null) fails the hop if the guest does not stop when cancelled.
     */
    private <T> T monitored(Invocation invocation, Consumer<FunctionFailure> onAbandon, Callable<T> task) {
        try {
            if (limits == null) {
                return task.call();
            }
            if (Thread.currentThread().isVirtual()) {
                return MonitoredExecution.run(task, limits, invocation::cancel);
            }
            return JsWatchdog.run(invocation, limits, onAbandon, task);
        } catch (RuntimeException x) {
            throw x;
        } catch (Exception x) {
            throw new IllegalStateException(x);
        }
    }

    /** Runs {@code task} within the limits (if any) on one of rpcc's sandbox threads, abandoned if it does not stop. */
    private <T> T handedOff(Invocation invocation, Callable<T> task) {
        try {
            return limits == null ? task.call() : MonitoredExecution.run(task, limits, invocation::cancel);
        } catch (RuntimeException x) {
            throw x;
        } catch (Exception x) {
            throw new IllegalStateException(x);
        }
    }

    private NextHop run(Engine e, Source js, ChainState state, Object result, Invocation invocation) {
        ChainContext ctx = ChainContext.currentOrNull(); // null outside a chain (benchmarks, tests)
        try (Context cx = newContext(e, limits, false)) {
            invocation.attach(cx);
            cx.eval(prologue);
            Value bindings = cx.getBindings("js");
            TRIPWIRES.forEach((name, rule) -> bindings.putMember(name, new Tripwire(name, rule, invocation)));
            bindings.putMember("rpcc", new RpccGlobal(ctx, invocation));
            return call(cx.eval(js), state, result, invocation);
        } catch (PolyglotException x) {
            invocation.throwIfRefused();
            throw translate(x);
        }
    }

    private static RuntimeException translate(PolyglotException e) {
        if (e.isCancelled()) {
            return e; // the watchdog cancelled it and reports the rule
        }
        if (e.isHostException()) {
            Throwable host = e.asHostException();
            return FunctionFailure.failed(host.getClass().getName(), FunctionText.bounded(host.getMessage()),
                    List.of(), null);
        }
        String message = e.getMessage() == null ? "" : FunctionText.bounded(e.getMessage());
        if (message.contains("Invalid string length") || message.contains("Invalid array length")
                || message.contains("Array buffer allocation failed") || message.contains("Invalid typed array length")
                || message.contains("Maximum apply argument length")) {
            return FunctionFailure.sandboxViolation("memory", "JavaScript chaining function hit an allocation limit: "
                    + message, false);
        }
        if (e.isResourceExhausted() || message.contains("Maximum call stack size exceeded")) {
            return FunctionFailure.sandboxViolation("stack-depth", "JavaScript chaining function recursed too deeply: "
                    + message, false);
        }
        List<String> trace = new ArrayList<>();
        for (PolyglotException.StackFrame f : e.getPolyglotStackTrace()) {
            if (f.isGuestFrame() && trace.size() < MAX_TRACE_LINES) {
                trace.add(FunctionText.bounded("at " + f));
            }
        }
        String name = message.contains(":") ? message.substring(0, Math.min(message.indexOf(':'), 100)) : "Error";
        return FunctionFailure.failed("js:" + name, message, trace, null);
    }
}
