package io.rpcc.benchmarks;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.internal.function.FunctionRuntime;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of chaining functions at a server (paper section 5.2.1, figure 8: 45.7 / 47.1 / 76.0 ms
 * to compile 0.6 / 5 / 50 KB of C#):
 *
 * <ul>
 *   <li>{@code javaCompileCold}: the first compilation in a fresh JVM (javac itself is cold), one
 *       shot per fork;</li>
 *   <li>{@code javaCompileWarm}: compiling a new source in a JVM that has compiled before
 *       (what a server pays on each cache miss), including sandbox verification and instrumentation;</li>
 *   <li>{@code jsFirstEvalCold}: creating the GraalJS engine and running a new script once, in a
 *       fresh JVM; {@code jsFirstEvalWarm}: a new script on a warm engine;</li>
 *   <li>{@code invoke*}: one invocation of a cached function: Java in the sandbox, Java without it,
 *       and JavaScript in the sandbox: a fresh context per invocation ({@code -Drpcc.js.reuseContexts=false}),
 *       and a reused, locked-down context (the default).</li>
 * </ul>
 */
public class FunctionRuntimeBenchmark {
    /** {@code JsFunctionCompilerProvider.REUSE_CONTEXTS} (rpcc-js's internal package is not exported). */
    static final String REUSE_CONTEXTS = "rpcc.js.reuseContexts";
    private static final AtomicLong UNIQUE = new AtomicLong();

    /** A Java chaining function of about {@code kb} kilobytes, made unique by {@code salt}. */
    static ChainingFunctionSource javaSource(double kb, long salt) {
        StringBuilder sb = new StringBuilder("""
                import io.rpcc.core.*;
                import java.util.*;
                /** generated for the benchmark, variant %d */
                public class Generated implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        int n = state.getOrDefault("n", 0);
                        if (n > 0) {
                            return NextHop.call("server-" + (n %% 4), "work", result, state.with("n", n - 1));
                        }
                        List<Integer> values = new ArrayList<>();
                        for (int i = 0; i < 3; i++) {
                            values.add(i * 2);
                        }
                        return NextHop.end(result + ":" + values);
                    }
                """.formatted(salt));
        int i = 0;
        while (sb.length() < kb * 1024 - 2) {
            sb.append("""
                        static int helper%d(int x) {
                            int acc = 0;
                            for (int k = 0; k < x; k++) {
                                acc += k * %d;
                            }
                            return acc;
                        }
                    """.formatted(i, i + 1));
            i++;
        }
        return ChainingFunctionSource.java(sb.append("}\n").toString());
    }

    static ChainingFunctionSource jsSource(long salt) {
        return ChainingFunctionSource.javascript("""
                // variant %d
                (state, result) => {
                    const n = state.n || 0;
                    if (n > 0) return rpcc.call('server-' + (n %% 4), 'work', result, {...state, n: n - 1});
                    const values = [0, 1, 2].map(i => i * 2);
                    return rpcc.end(result + ':' + values.join(','));
                }
                """.formatted(salt));
    }

    /**
     * A runtime as a started node has it: opened, so that it holds rpcc's compiler and sandbox
     * threads (they run while some node uses them); each state closes its runtimes at tear-down.
     */
    static FunctionRuntime runtime(boolean sandboxed) {
        return FunctionRuntime.forNode(TypeRegistry.empty(), sandboxed ? SandboxLimits.DEFAULT : null, 4096).open();
    }

    /** State for compilations: a fresh runtime per fork; a new source for every call. */
    @State(Scope.Benchmark)
    public static class Compile {
        @Param({"0.6", "5", "50"})
        public double kb;

        FunctionRuntime runtime;

        @Setup(Level.Trial)
        public void setUp() {
            runtime = runtime(true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            runtime.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Fork(5)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public CompiledFunction javaCompileCold(Compile c) {
        return c.runtime.load(javaSource(c.kb, UNIQUE.incrementAndGet())).function();
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public CompiledFunction javaCompileWarm(Compile c) {
        return c.runtime.load(javaSource(c.kb, UNIQUE.incrementAndGet())).function();
    }

    /** State for JavaScript first evaluations. */
    @State(Scope.Benchmark)
    public static class Js {
        FunctionRuntime runtime;

        @Setup(Level.Trial)
        public void setUp() {
            runtime = runtime(true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            runtime.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Fork(5)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Object jsFirstEvalCold(Js js) throws Exception {
        CompiledFunction f = js.runtime.load(jsSource(UNIQUE.incrementAndGet())).function();
        return js.runtime.invoke(f, ChainState.empty(), "r");
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Object jsFirstEvalWarm(Js js) throws Exception {
        CompiledFunction f = js.runtime.load(jsSource(UNIQUE.incrementAndGet())).function();
        return js.runtime.invoke(f, ChainState.empty(), "r");
    }

    /** State for invocations of cached functions. */
    @State(Scope.Benchmark)
    public static class Invoke {
        FunctionRuntime sandboxed;
        FunctionRuntime unrestricted;
        FunctionRuntime freshContexts;
        CompiledFunction javaInSandbox;
        CompiledFunction javaUnrestricted;
        CompiledFunction javascript;
        CompiledFunction javascriptReused;
        final ChainState state = ChainState.of("n", 0);

        @Setup(Level.Trial)
        public void setUp() {
            sandboxed = runtime(true);
            unrestricted = runtime(false);
            javaInSandbox = sandboxed.load(javaSource(0.6, 1)).function();
            javaUnrestricted = unrestricted.load(javaSource(0.6, 1)).function();
            javascriptReused = sandboxed.load(jsSource(1)).function(); // reused contexts: the default
            System.setProperty(REUSE_CONTEXTS, "false"); // read when a runtime's compilers are made
            try {
                freshContexts = runtime(true);
            } finally {
                System.clearProperty(REUSE_CONTEXTS);
            }
            javascript = freshContexts.load(jsSource(1)).function();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            sandboxed.close();
            unrestricted.close();
            freshContexts.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object invokeJavaSandboxed(Invoke i) throws Exception {
        return i.sandboxed.invoke(i.javaInSandbox, i.state, "r");
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object invokeJavaUnrestricted(Invoke i) throws Exception {
        return i.unrestricted.invoke(i.javaUnrestricted, i.state, "r");
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object invokeJavaScript(Invoke i) throws Exception {
        return i.freshContexts.invoke(i.javascript, i.state, "r");
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object invokeJavaScriptReusedContext(Invoke i) throws Exception {
        return i.sandboxed.invoke(i.javascriptReused, i.state, "r");
    }
}
