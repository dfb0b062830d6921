package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.FailureFields;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * A chain failure once it is located: its kind and the public {@link ChainFailure} (host, hop, path,
 * console, timings attached), as an ERROR frame carries them. A {@link HopFailure} becomes one with
 * {@link HopFailure#located}; a failure rpcc detects where it already knows the place is one from
 * the start ({@link #detected}). Outside a frame it is, for instance, a sub-chain's failure on its
 * way to the sub-chain's creator ({@link WireFormat#encodeFailure}).
 *
 * @param code its kind
 * @param failure what failed, where
 */
@EngineSpi
public record LocatedFailure(ChainErrorCode code, ChainFailure failure) {
    /**
     * A failure of kind {@code code} that rpcc itself detected at {@code host}, hop {@code hop}
     * (after {@code path}), outside a hop's run: it has no details, console, timings or fields, and
     * the exception name of the code's public exception.
     */
    public static LocatedFailure detected(ChainErrorCode code, String message, String host, int hop,
                                          List<String> path) {
        return new LocatedFailure(code, new ChainFailure(ChainErrors.exceptionName(code), message, host, hop, path,
                List.of(), List.of(), List.of(), FailureFields.NONE));
    }

    /** The typed exception the originator would see. */
    public ChainException toException() {
        return ChainErrors.toException(code, failure);
    }
}
