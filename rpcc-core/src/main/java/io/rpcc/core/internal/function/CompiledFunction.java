package io.rpcc.core.internal.function;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;

/**
 * A chaining function ready to run: compiled (or otherwise prepared) once, invoked many times.
 */
public interface CompiledFunction {
    /** The source it came from. */
    ChainingFunctionSource source();

    /**
     * Runs the function on {@code state} and {@code result}, in the node's sandbox if it has one.
     *
     * @throws io.rpcc.core.internal.wire.HopFailure for sandbox violations
     * @throws Exception what the function threw
     */
    NextHop invoke(ChainState state, Object result) throws Exception;
}
