package io.rpcc.function.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code Math.random()} is one generator for the whole JVM: from two of its draws a function could
 * recover its state and predict the next draw of another chain's function (or of the application).
 * In a sandboxed function it draws from a generator of the invocation's own.
 */
class MathRandomIsolationTest {
    private static final long MULTIPLIER = 0x5DEECE66DL;
    private static final long MASK = (1L << 48) - 1;
    private static FunctionRuntime runtime;

    @BeforeAll
    static void open() {
        runtime = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 8).open();
    }

    @AfterAll
    static void close() {
        runtime.close();
    }

    static final ChainingFunctionSource DRAWS = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.*;
            import java.util.function.DoubleSupplier;
            public class Draws implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    DoubleSupplier strict = StrictMath::random;
                    return NextHop.end(List.of(Math.random(), Math.random(), strict.getAsDouble()));
                }
            }
            """);

    @Test
    void theRecoveryWorksOnTheJvmsGenerator() {
        double first = Math.random();
        double second = Math.random();
        OptionalLong state = recover(first, second);
        assertTrue(state.isPresent(), "the attack recovers java.util.Random's state from two draws");
        assertEquals(nextDouble(state.getAsLong()).draw(), Math.random(), "and predicts the next draw");
    }

    @Test
    void aFunctionsDrawsRevealNothingOfTheJvmsGenerator() throws Exception {
        @SuppressWarnings("unchecked")
        List<Double> draws = (List<Double>) ((NextHop.End) runtime.invoke(runtime.load(DRAWS).function(),
                ChainState.empty(), null)).result();
        assertEquals(3, draws.size());
        assertTrue(recover(draws.get(0), draws.get(1)).isEmpty(), "the draws do not come from java.util.Random: " + draws);
        @SuppressWarnings("unchecked")
        List<Double> again = (List<Double>) ((NextHop.End) runtime.invoke(runtime.load(DRAWS).function(),
                ChainState.empty(), null)).result();
        assertNotEquals(draws, again, "each invocation has a generator of its own, freshly seeded");
    }

    private record Step(long state, double draw) {
    }

    private static long next(long seed) {
        return (seed * MULTIPLIER + 0xBL) & MASK;
    }

    /** What {@code Random.nextDouble()} draws from the state after {@code seed}, and the state it leaves. */
    private static Step nextDouble(long seed) {
        long s1 = next(seed);
        long s2 = next(s1);
        long bits = ((s1 >>> 22) << 27) + (s2 >>> 21);
        return new Step(s2, bits * 0x1.0p-53);
    }

    /** The generator's state after {@code second}, if both are consecutive draws of one {@code java.util.Random}. */
    private static OptionalLong recover(double first, double second) {
        long bits = (long) (first * 0x1.0p53);
        long high26 = bits >>> 27;
        long low27 = bits & ((1L << 27) - 1);
        for (long x = 0; x < (1L << 22); x++) {
            long s1 = (high26 << 22) | x;
            long s2 = next(s1);
            if ((s2 >>> 21) == low27) {
                Step step = nextDouble(s2);
                if (step.draw() == second) {
                    return OptionalLong.of(step.state());
                }
            }
        }
        return OptionalLong.empty();
    }
}
