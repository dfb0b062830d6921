package io.rpcc.benchmarks;

import io.rpcc.core.ChainState;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.function.RunnerPoolSettings;
import io.rpcc.core.spi.CompiledFunction;
import java.util.concurrent.TimeUnit;
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
 * One invocation of a cached Java chaining function (the 0.6 KB one of
 * {@link FunctionRuntimeBenchmark}), side by side: in the node's JVM in the bytecode sandbox
 * ({@code IN_PROCESS}), and in a warm function-runner process ({@code PROCESS}: the round trip over
 * the runner's pipes, the Kryo encoding of state, result and next hop, and the same sandbox there).
 * The runner's one-time costs (its JVM start, its first compilation of the function) are paid in
 * the set-up.
 */
public class FunctionIsolationBenchmark {
    /** A runtime whose Java functions run as {@code isolation} says, and one function loaded into it. */
    @State(Scope.Benchmark)
    public static class Isolated {
        @Param({"IN_PROCESS", "PROCESS"})
        public FunctionIsolation isolation;

        FunctionRuntime runtime;
        CompiledFunction function;
        final ChainState state = ChainState.of("n", 0);

        @Setup(Level.Trial)
        public void setUp() {
            runtime = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 16)
                    .isolated(isolation, new RunnerPoolSettings(1, 1, 4, 96)).open();
            function = runtime.load(FunctionRuntimeBenchmark.javaSource(0.6, 1)).function();
            runtime.invoke(function, state, "r"); // a runner started, and the function compiled in it
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            runtime.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Fork(1)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object invokeJava(Isolated i) {
        return i.runtime.invoke(i.function, i.state, "r");
    }
}
