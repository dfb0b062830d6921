package io.rpcc.core.internal.function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import io.rpcc.core.testing.MalformedRoutes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The static routes' chaining function runs as the engine's plain Java: a node without
 * rpcc-function-java (these tests have none on the class path) walks a route, compiles nothing, needs
 * no platform thread, passes the route on as it came, and fails a state of the wrong shape (a peer
 * wrote it) with {@code CHAINING_FUNCTION_FAILED}, as the compiled text would.
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
            assertSame(ROUTE.initialState().get(StaticRoute.ROUTE).getClass(), byte[].class);
            NextHop third = rt.invoke(f, call.state(), "r2");
            assertSame(call.state().get(StaticRoute.ROUTE), assertInstanceOf(NextHop.Call.class, third).state()
                    .get(StaticRoute.ROUTE), "the route is passed on as it came, not decoded and encoded again");
            NextHop last = rt.invoke(f, call.state().with(StaticRoute.NEXT, 3), "r3");
            assertEquals(NextHop.end("r3"), last);
        } finally {
            rt.close();
        }
    }

    @Test
    void aLongRouteSharesEntriesAndKeepsAnyName() {
        FunctionRuntime rt = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 4).open();
        try {
            var f = rt.load(StaticRoute.CHAINING_FUNCTION).function();
            List<StaticRoute.Hop> hops = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                hops.add(StaticRoute.hop(i % 7 == 6 ? "nœud-é\uD83D\uDE00" : "s" + i % 3, i % 2 == 0 ? "echo" : ""));
            }
            ChainState state = StaticRoute.of(hops).initialState();
            byte[] route = (byte[]) state.get(StaticRoute.ROUTE);
            int entries = 3 * 2 + 1 * 2; // s0..s2 × echo/"" and the odd name × echo/""
            assertTrue(route.length <= 5 + 4 * 300 + entries * (8 + 2 * 20), "hops of the same pair share an entry: "
                    + route.length + " bytes");
            for (int i = 1; i < 300; i++) {
                NextHop.Call call = assertInstanceOf(NextHop.Call.class, rt.invoke(f, state, i));
                assertEquals(hops.get(i).server(), call.server());
                assertEquals(hops.get(i).serviceFunction(), call.serviceFunction());
                state = call.state();
            }
            assertEquals(NextHop.end("done"), rt.invoke(f, state, "done"));
        } finally {
            rt.close();
        }
    }

    @Test
    void aStateOfTheWrongShapeFailsTheHop() {
        FunctionRuntime rt = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 4).open();
        try {
            var f = rt.load(StaticRoute.CHAINING_FUNCTION).function();
            byte[] good = (byte[]) ROUTE.initialState().get(StaticRoute.ROUTE);
            List<ChainState> hostile = new ArrayList<>(List.of(
                    ChainState.empty(), // no route at all
                    route(List.of("s1", "s2"), 1), // the old layout: lists of names
                    route("s1", 1),
                    ChainState.of(StaticRoute.ROUTE, good, StaticRoute.NEXT, "1"),
                    route(good, -1),
                    route(MalformedRoutes.cutShort(good), 2))); // the last name cut short
            MalformedRoutes.of(good).forEach(r -> hostile.add(route(r, 1)));
            for (ChainState s : hostile) {
                HopFailure e = assertThrows(HopFailure.class, () -> rt.invoke(f, s, "r"), s::toString);
                assertEquals(ChainErrorCode.CHAINING_FUNCTION_FAILED, e.code(), s::toString);
            }
        } finally {
            rt.close();
        }
    }

    private static ChainState route(Object route, Object next) {
        return ChainState.of(StaticRoute.ROUTE, route, StaticRoute.NEXT, next);
    }

    @Test
    void onlyTheExactTextIsRpccsOwn() {
        assertTrue(StaticRouteFunction.is(StaticRoute.CHAINING_FUNCTION));
        ChainingFunctionSource changed = ChainingFunctionSource.java(StaticRoute.CHAINING_FUNCTION.source() + " ");
        assertFalse(StaticRouteFunction.is(changed), "one more character is another function, compiled and sandboxed");
    }
}
