package io.rpcc.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.HopTiming;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.HopOutcome;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Observes every hop a server runs: one {@value RpccObservations#HOP} observation per hop (see
 * {@link RpccObservations} for its keys), from the hop's start until it is done, ended with the hop's
 * real outcome: where the chain went ({@value RpccObservations#HOP_OUTCOME}), or the
 * {@code ChainException} the originator sees for a failed or refused hop. The observation is current
 * on the hop's thread while it runs there, so that what the service and chaining functions observe
 * nests under it. The auto-configuration adds it to the server, outermost, when the application has
 * an {@link ObservationRegistry}.
 *
 * <pre>{@code
 * RpccServer server = RpccServer.builder("inventory")
 *     .decorator(new ObservationHopDecorator(registry))
 *     .build();
 * }</pre>
 */
public final class ObservationHopDecorator implements HopDecorator {
    private final ObservationRegistry registry;

    /** Records observations in {@code registry}. */
    public ObservationHopDecorator(ObservationRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public Listener decorate(Start start) {
        ChainContext context = start.context();
        String service = start.serviceFunction() != null ? start.serviceFunction() : "none";
        String kind = start.kind().name().toLowerCase(Locale.ROOT);
        Observation observation = Observation.createNotStarted(RpccObservations.HOP, registry)
                .contextualName(start.kind() == Kind.SERVICE ? "rpcc hop " + service : "rpcc hop (" + kind + ")")
                .lowCardinalityKeyValue(RpccObservations.NODE, context.node())
                .lowCardinalityKeyValue(RpccObservations.SERVICE, service)
                .lowCardinalityKeyValue(RpccObservations.HOP_KIND, kind)
                .highCardinalityKeyValue(RpccObservations.CHAIN_ID, context.chainId())
                .highCardinalityKeyValue(RpccObservations.HOP_NUMBER, Integer.toString(context.hop()))
                .highCardinalityKeyValue(RpccObservations.ORIGINATOR, context.originator())
                .start();
        Observation.Scope scope = observation.openScope();
        return new Listener() {
            @Override
            public void afterRun() {
                scope.close();
            }

            @Override
            public void ended(HopOutcome outcome, @Nullable HopTiming timing) {
                observation.lowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, name(outcome));
                ChainException failure = outcome.failure();
                if (failure != null) {
                    RpccObservations.failed(observation, failure);
                } else if (outcome instanceof HopOutcome.Cancelled) {
                    observation.lowCardinalityKeyValue(RpccObservations.OUTCOME, "ERROR")
                            .lowCardinalityKeyValue(RpccObservations.ERROR_CODE, "CANCELLED");
                } else {
                    RpccObservations.succeeded(observation);
                }
                observation.stop();
            }
        };
    }

    /** {@code FORWARDED}, {@code FINISHED}, {@code SUB_CHAIN_STARTED}, ...: the outcome's type in upper snake case. */
    static String name(HopOutcome outcome) {
        return outcome.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }
}
