package io.rpcc.core.internal.function;

import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionSource;

/**
 * A chaining function ready to run: compiled (or otherwise prepared) once, invoked many times.
 */
public interface CompiledFunction {
    /** The source it came from. */
    ChainingFunctionSource source();

    /** A fresh instance to invoke; instances are not shared between invocations. */
    ChainingFunction newInstance();
}
