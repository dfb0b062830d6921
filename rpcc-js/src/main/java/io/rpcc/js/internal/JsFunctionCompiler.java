package io.rpcc.js.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.internal.chain.CurrentContext;
import io.rpcc.core.internal.function.CompiledFunction;
import io.rpcc.core.internal.function.FunctionCompiler;
import io.rpcc.core.internal.function.MonitoredExecution;
import io.rpcc.core.internal.function.SandboxViolation;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.SourceSection;
import org.graalvm.polyglot.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JavaScript chaining functions on GraalJS. A source is parsed once (syntax errors come back with
 * line and column); every invocation gets a fresh context from one shared {@link Engine} (which
 * caches the parsed code), under {@link SandboxPolicy#CONSTRAINED}: no host class access, no I/O,
 * no threads, no native access, no polyglot eval, standard output and error discarded. Resource
 * limits are watched from outside by {@link MonitoredExecution}, which cancels the context.
 *
 * <p>On a stock JDK GraalJS runs in its interpreter (no JIT compilation of JavaScript); rpcc says so
 * once in the log and turns off Truffle's own warning about it.
 */
final class JsFunctionCompiler implements FunctionCompiler {
    private static final Logger log = LoggerFactory.getLogger(JsFunctionCompiler.class);
    private static volatile Engine engine;

    /** Globals the constrained sandbox removes, each with the rule its use breaks. */
    private static final Map<String, String> TRIPWIRES = Map.ofEntries(
            Map.entry("Java", "host-access"), Map.entry("Packages", "host-access"), Map.entry("java", "host-access"),
            Map.entry("javax", "host-access"), Map.entry("JavaImporter", "host-access"),
            Map.entry("importClass", "host-access"), Map.entry("importPackage", "host-access"),
            Map.entry("Polyglot", "polyglot"), Map.entry("load", "files"), Map.entry("loadWithNewGlobal", "files"),
            Map.entry("read", "files"), Map.entry("readFully", "files"), Map.entry("readbuffer", "files"),
            Map.entry("readline", "files"), Map.entry("quit", "exit"), Map.entry("exit", "exit"),
            Map.entry("require", "class-loading"), Map.entry("process", "environment"),
            Map.entry("Worker", "threads"), Map.entry("SharedArrayBuffer", "threads"), Map.entry("Atomics", "threads"));

    private final SandboxLimits limits;

    JsFunctionCompiler(SandboxLimits limits) {
        this.limits = limits;
    }

    static Engine engine() {
        Engine e = engine;
        if (e == null) {
            synchronized (JsFunctionCompiler.class) {
                e = engine;
                if (e == null) {
                    e = Engine.newBuilder("js")
                            .sandbox(SandboxPolicy.CONSTRAINED)
                            .out(OutputStream.nullOutputStream())
                            .err(OutputStream.nullOutputStream())
                            .option("engine.WarnInterpreterOnly", "false")
                            .build();
                    log.info("GraalJS loaded for JavaScript chaining functions; on a stock JDK it runs in its "
                            + "interpreter, without JIT compilation (run on GraalVM for compiled JavaScript)");
                    engine = e;
                }
            }
        }
        return e;
    }

    private static Context newContext() {
        return Context.newBuilder("js")
                .engine(engine())
                .sandbox(SandboxPolicy.CONSTRAINED)
                .in(InputStream.nullInputStream())
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .build();
    }

    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JS;
    }

    @Override
    public CompiledFunction compile(ChainingFunctionSource source) {
        Source js = Source.newBuilder("js", source.source(), "chaining-function.js").buildLiteral();
        try (Context cx = newContext()) {
            cx.parse(js);
        } catch (PolyglotException e) {
            if (e.isSyntaxError()) {
                SourceSection at = e.getSourceLocation();
                String detail = (at == null ? "0:0" : at.getStartLine() + ":" + at.getStartColumn()) + ": " + e.getMessage();
                throw new HopFailure(ErrorCode.CHAINING_FUNCTION_COMPILE, ErrorCode.CHAINING_FUNCTION_COMPILE.exceptionName(),
                        "JavaScript chaining function (" + source.id().substring(0, 15) + "…) does not parse: " + detail,
                        List.of(detail), null);
            }
            throw e;
        }
        return new CompiledFunction() {
            @Override
            public ChainingFunctionSource source() {
                return source;
            }

            @Override
            public NextHop invoke(ChainState state, Object result) throws Exception {
                AtomicReference<Context> running = new AtomicReference<>();
                AtomicReference<SandboxViolation> tripped = new AtomicReference<>();
                if (limits == null) {
                    return run(js, state, result, running, tripped);
                }
                return MonitoredExecution.run(() -> run(js, state, result, running, tripped), limits, () -> {
                    Context cx = running.get();
                    if (cx != null) {
                        cx.close(true);
                    }
                });
            }
        };
    }

    private static NextHop run(Source js, ChainState state, Object result, AtomicReference<Context> running,
                               AtomicReference<SandboxViolation> tripped) {
        ChainContext ctx = CurrentContext.peek(); // null outside a chain (benchmarks, tests)
        try (Context cx = newContext()) {
            running.set(cx);
            Value bindings = cx.getBindings("js");
            TRIPWIRES.forEach((name, rule) -> bindings.putMember(name, new Tripwire(name, rule, tripped)));
            bindings.putMember("rpcc", new RpccGlobal(ctx));
            Value fn = cx.eval(js);
            if (!fn.canExecute()) {
                throw new HopFailure(ErrorCode.CHAINING_FUNCTION_COMPILE, "a JavaScript chaining function must evaluate "
                        + "to a function (state, result) => nextHop, got " + fn);
            }
            Value out = fn.execute(JsValues.toGuest(state), JsValues.toGuest(result));
            if (tripped.get() != null) {
                throw violation(tripped.get());
            }
            if (out.isProxyObject() && out.asProxyObject() instanceof RpccGlobal.HopView hop) {
                return hop.hop();
            }
            if (out.isNull()) {
                return null; // reported as "returned null" by the runtime
            }
            throw new IllegalArgumentException("a JavaScript chaining function must return rpcc.call(...), "
                    + "rpcc.callThenEnd(...) or rpcc.end(...), got " + out);
        } catch (PolyglotException e) {
            if (tripped.get() != null) {
                throw violation(tripped.get());
            }
            throw translate(e);
        }
    }

    private static HopFailure violation(SandboxViolation v) {
        return new HopFailure(ErrorCode.SANDBOX_VIOLATION, v.getMessage());
    }

    private static RuntimeException translate(PolyglotException e) {
        if (e.isCancelled()) {
            return e; // the watchdog cancelled it and reports the rule
        }
        if (e.isHostException()) {
            Throwable host = e.asHostException();
            if (host instanceof SandboxViolation v) {
                return violation(v);
            }
            return new HopFailure(ErrorCode.CHAINING_FUNCTION_FAILED, host.getClass().getName(), host.getMessage(),
                    List.of(), host);
        }
        String message = e.getMessage() == null ? "" : e.getMessage();
        if (message.contains("Invalid string length") || message.contains("Invalid array length")
                || message.contains("Array buffer allocation failed") || message.contains("Invalid typed array length")) {
            return new HopFailure(ErrorCode.SANDBOX_VIOLATION, "JavaScript chaining function hit an allocation limit: "
                    + message + " (rule: memory)");
        }
        if (e.isResourceExhausted() || message.contains("Maximum call stack size exceeded")) {
            return new HopFailure(ErrorCode.SANDBOX_VIOLATION, "JavaScript chaining function recursed too deeply: "
                    + message + " (rule: stack-depth)");
        }
        List<String> trace = new ArrayList<>();
        for (PolyglotException.StackFrame f : e.getPolyglotStackTrace()) {
            if (f.isGuestFrame()) {
                trace.add("at " + f);
            }
        }
        String name = message.contains(":") ? message.substring(0, message.indexOf(':')) : "Error";
        return new HopFailure(ErrorCode.CHAINING_FUNCTION_FAILED, "js:" + name, message, trace, null);
    }
}
