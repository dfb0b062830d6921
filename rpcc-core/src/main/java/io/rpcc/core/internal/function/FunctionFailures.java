package io.rpcc.core.internal.function;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.FunctionFailure;

/**
 * Turns what a function-language plug-in raises ({@link FunctionFailure}, of a public code) into the
 * hop failure the node reports; a failure marked transient is marked so that {@link FunctionRuntime}
 * does not cache it ({@link TransientFailure}).
 */
final class FunctionFailures {
    private FunctionFailures() {
    }

    /** {@code f} as a hop failure. */
    static HopFailure toHop(FunctionFailure f) {
        ChainErrorCode code = f.code();
        String name = f.exceptionName() == null ? ChainErrors.exceptionName(code) : f.exceptionName();
        HopFailure hop = new HopFailure(code, name, f.getMessage(), f.details(), f.fields(), f.getCause());
        return f.fields().transientCondition() ? TransientFailure.of(hop) : hop;
    }
}
