package io.rpcc.observability.internal;

import io.micrometer.observation.Observation;
import io.rpcc.core.ChainException;
import io.rpcc.observability.RpccObservations;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/** How a chain or hop ended, as key values of its observation. */
final class Outcomes {
    private Outcomes() {
    }

    /**
     * Marks {@code observation} as failed with {@code error} (unwrapped from a completion exception):
     * its error code, the hop and host a {@link ChainException} names, and the exception itself.
     */
    static void failed(Observation observation, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String code;
        if (cause instanceof ChainException chainException) {
            code = chainException.code().name();
            observation.highCardinalityKeyValue(RpccObservations.ERROR_HOST, chainException.host())
                    .highCardinalityKeyValue(RpccObservations.ERROR_HOP, Integer.toString(chainException.hop()));
        } else if (cause instanceof CancellationException) { // a future cancelled before it had a chain
            code = "CANCELLED";
        } else {
            code = "UNKNOWN";
        }
        observation.lowCardinalityKeyValue(RpccObservations.OUTCOME, "ERROR")
                .lowCardinalityKeyValue(RpccObservations.ERROR_CODE, code).error(cause);
    }

    /** Marks {@code observation} as successful. */
    static void succeeded(Observation observation) {
        observation.lowCardinalityKeyValue(RpccObservations.OUTCOME, "SUCCESS")
                .lowCardinalityKeyValue(RpccObservations.ERROR_CODE, "NONE");
    }
}
