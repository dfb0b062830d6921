package io.rpcc.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import io.rpcc.core.ChainResult;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Observes every call of an {@code RpccClient}: one {@value RpccObservations#CHAIN} observation per
 * call (see {@link RpccObservations} for its keys), from the start until the result or the error (for
 * a reply set, until the set has ended), in every start mode. The observation is current on the
 * calling thread while the call starts, so that what the client's interceptors do nests under it. The
 * auto-configuration registers it on the application's client, with the application's
 * {@link ObservationRegistry} if it has one.
 *
 * <pre>{@code
 * RpccClient client = RpccClient.builder()
 *     .decorator(new ObservationChainDecorator(registry, "checkout"))
 *     .build();
 * }</pre>
 */
public final class ObservationChainDecorator implements ChainDecorator {
    private final ObservationRegistry registry;
    private final String clientTag;

    /**
     * Records observations in {@code registry}, tagged {@value RpccObservations#CLIENT} = {@code clientTag}:
     * a name that stays the same across restarts and replicas (the auto-configuration gives
     * {@code rpcc.client.name} if set, else {@code spring.application.name}, else the node's name).
     */
    public ObservationChainDecorator(ObservationRegistry registry, String clientTag) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clientTag = Objects.requireNonNull(clientTag, "clientTag");
    }

    @Override
    public Decoration decorate(Start start) {
        ChainCall call = start.call();
        Observation observation = Observation.createNotStarted(RpccObservations.CHAIN, registry)
                .contextualName("rpcc chain " + call.server() + " " + call.serviceFunction())
                .lowCardinalityKeyValue(RpccObservations.CLIENT, clientTag)
                .lowCardinalityKeyValue(RpccObservations.SERVER, call.server())
                .lowCardinalityKeyValue(RpccObservations.SERVICE, call.serviceFunction())
                .start();
        Observation.Scope scope = observation.openScope();
        return Decoration.of(call, new Listener() {
            @Override
            public void afterStart() {
                scope.close();
            }

            @Override
            public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
                if (failure != null) {
                    RpccObservations.failed(observation, failure);
                } else {
                    RpccObservations.succeeded(observation);
                }
                if (result != null) {
                    observation.highCardinalityKeyValue(RpccObservations.HOPS, Integer.toString(result.hops()));
                }
                observation.stop();
            }
        });
    }
}
