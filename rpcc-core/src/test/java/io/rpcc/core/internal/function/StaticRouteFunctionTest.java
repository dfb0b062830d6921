package io.rpcc.core.internal.function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The static routes' chaining function runs as the engine's plain Java: a node without
 * rpcc-function-java (these tests have none on the class path) walks a route, compiles nothing, needs
 * no platform thread, and fails a state of the wrong shape (a peer wrote it) with
 * {@code CHAINING_FUNCTION_FAILED}, as the compiled text would.
 */
class StaticRouteFunctionTest {
    private static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("s1", "a"), StaticRoute.hop("s2", "b"),
            StaticRoute.hop("s3", "c"));

    @Test
    void walksARouteWithoutTheJavaModule() {
        FunctionRuntime rt = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 4).open();
        try {
            var f = rt.load(StaticRoute.CHAINING_FUNCTION).function();
            assertInstanceOf(StaticRouteFunction.class, f);
            assertFalse(rt.prefersPlatformThread(StaticRoute.CHAINING_FUNCTION), "no sandbox thread for rpcc's own code");
            NextHop next = rt.invoke(f, ROUTE.initialState(), "r1");
            NextHop.Call call = assertInstanceOf(NextHop.Call.class, next);
            assertEquals("s2", call.server());
            assertEquals("b", call.serviceFunction());
            assertEquals("r1", call.params());
            assertEquals(2, call.state().get(StaticRoute.NEXT, Integer.class));
            NextHop last = rt.invoke(f, call.state().with(StaticRoute.NEXT, 3), "r3");
            assertEquals(NextHop.end("r3"), last);
        } finally {
            rt.close();
        }
    }

    @Test
    void aStateOfTheWrongShapeFailsTheHop() {
        FunctionRuntime rt = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 4).open();
        try {
            var f = rt.load(StaticRoute.CHAINING_FUNCTION).function();
            List<ChainState> hostile = List.of(
                    ChainState.empty(), // no route at all
                    ChainState.of(StaticRoute.SERVERS, "s1", StaticRoute.FUNCTIONS, List.of("a"), StaticRoute.NEXT, 0),
                    ChainState.of(StaticRoute.SERVERS, List.of("s1"), StaticRoute.FUNCTIONS, List.of("a"), StaticRoute.NEXT, "0"),
                    ChainState.of(StaticRoute.SERVERS, List.of("s1", "s2"), StaticRoute.FUNCTIONS, List.of("a"), StaticRoute.NEXT, 1),
                    ChainState.of(StaticRoute.SERVERS, List.of("s1", "s2"), StaticRoute.FUNCTIONS, List.of("a", "b"), StaticRoute.NEXT, -1),
                    ChainState.of(StaticRoute.SERVERS, List.of(7, 8), StaticRoute.FUNCTIONS, List.of("a", "b"), StaticRoute.NEXT, 1));
            for (ChainState s : hostile) {
                HopFailure e = assertThrows(HopFailure.class, () -> rt.invoke(f, s, "r"), s::toString);
                assertEquals(ChainErrorCode.CHAINING_FUNCTION_FAILED, e.code(), s::toString);
            }
        } finally {
            rt.close();
        }
    }

    @Test
    void onlyTheExactTextIsRpccsOwn() {
        assertTrue(StaticRouteFunction.is(StaticRoute.CHAINING_FUNCTION));
        ChainingFunctionSource changed = ChainingFunctionSource.java(StaticRoute.CHAINING_FUNCTION.source() + " ");
        assertFalse(StaticRouteFunction.is(changed), "one more character is another function, compiled and sandboxed");
    }
}
