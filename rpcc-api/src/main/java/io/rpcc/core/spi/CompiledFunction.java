package io.rpcc.core.spi;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import java.util.function.Consumer;

/**
 * A chaining function ready to run: compiled (or otherwise prepared) once, invoked many times.
 */
public interface CompiledFunction {
    /** The source it came from. */
    ChainingFunctionSource source();

    /**
     * Runs the function on {@code state} and {@code result}, in the node's sandbox if it has one.
     *
     * @throws FunctionFailure for sandbox violations, and for what the function threw where the
     *     sandbox describes it
     * @throws Exception what the function threw
     */
    NextHop invoke(ChainState state, Object result) throws Exception;

    /**
     * Runs the function as {@link #invoke(ChainState, Object)}, for a hop that can be failed from
     * another thread: if the sandbox gives up on an invocation stuck past its wall-time limit, it
     * reports the hop's failure through {@code onAbandon} at once (on another thread), and this call,
     * whenever the stuck thread comes back, throws {@link InvocationAbandoned}. By default the
     * function is invoked without such a hook.
     */
    default NextHop invoke(ChainState state, Object result, Consumer<FunctionFailure> onAbandon) throws Exception {
        return invoke(state, result);
    }
}
