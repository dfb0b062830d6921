package io.rpcc.observability.internal;

import io.micrometer.observation.Observation;
import io.rpcc.core.ChainException;
import io.rpcc.observability.RpccObservations;
import java.net.InetSocketAddress;
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

    /** The longest reason a {@link #failover} event's contextual name carries. */
    private static final int MAX_REASON = 200;

    /**
     * The {@value RpccObservations#EVENT_FAILOVER} event of a request for {@code server} that went
     * from endpoint {@code failed} to {@code next} because of {@code failure}: as Micrometer's events
     * carry no attributes and a span event is named by the event's contextual name, that name says
     * it all: {@code rpcc.failover <server> <failed> -> <next>: <why>} (the failure's message, cut to
     * 200 characters).
     */
    static Observation.Event failover(String server, InetSocketAddress failed, InetSocketAddress next,
                                      Throwable failure) {
        String why = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName();
        if (why.length() > MAX_REASON) {
            why = why.substring(0, MAX_REASON - 3) + "...";
        }
        return Observation.Event.of(RpccObservations.EVENT_FAILOVER, RpccObservations.EVENT_FAILOVER + " " + server
                + " " + endpoint(failed) + " -> " + endpoint(next) + ": " + why);
    }

    private static String endpoint(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }
}
