package io.rpcc.core.internal.function;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.spi.CompiledFunction;

/**
 * {@link StaticRoute#CHAINING_FUNCTION}, rpcc's own chaining function that walks every static route,
 * as plain Java of the engine rather than compiled from its text: a node that receives its text
 * (whose id is a digest of it, so the sender sent exactly rpcc's code) runs this, with no compiler,
 * no sandbox and no platform thread. It does what the text does, {@link StaticRoute#next}, in
 * constant time whatever the route's length. The route and the index come from the chain state,
 * which a peer wrote, so a state of the wrong shape fails the hop (as the compiled text would) with
 * {@code CHAINING_FUNCTION_FAILED}.
 */
final class StaticRouteFunction implements CompiledFunction {
    private final ChainingFunctionSource source;

    StaticRouteFunction(ChainingFunctionSource source) {
        this.source = source;
    }

    /** Whether {@code source} is the static routes' chaining function (its full text, by its id). */
    static boolean is(ChainingFunctionSource source) {
        return !source.isReference() && source.id().equals(StaticRoute.CHAINING_FUNCTION.id());
    }

    @Override
    public ChainingFunctionSource source() {
        return source;
    }

    @Override
    public NextHop invoke(ChainState state, Object result) {
        return StaticRoute.next(state, result);
    }
}
