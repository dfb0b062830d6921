package io.rpcc.observability.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.observability.RpccObservations;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * One {@value RpccObservations#CHAIN} observation (a CLIENT span, the root of the chain's trace, or
 * a child of the observation current where the call starts) per call of a client, from its start
 * until it ended. The tracing handlers write its context into the call's metadata
 * ({@link SenderContext} over the metadata), so that the chain's first hop is its child. It is
 * current on the calling thread while the call starts.
 */
public final class ChainTracingDecorator implements ChainDecorator {
    private final ObservationRegistry registry;

    /** Records in {@code registry}. */
    public ChainTracingDecorator(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Decoration decorate(Start start) {
        ChainCall call = start.call();
        MetadataCarrier carrier = new MetadataCarrier(call.metadata());
        SenderContext<MetadataCarrier> sender = new SenderContext<>(MetadataCarrier.SETTER, Kind.CLIENT);
        sender.setCarrier(carrier);
        sender.setRemoteServiceName(call.server());
        Observation observation = Observation.createNotStarted(RpccObservations.CHAIN, () -> sender, registry)
                .contextualName("rpcc chain " + call.server() + " " + call.serviceFunction())
                .lowCardinalityKeyValue(RpccObservations.SERVER, call.server())
                .lowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, call.serviceFunction())
                .start(); // the handlers write its context into the carrier
        Observation.Scope scope = observation.openScope();
        return Decoration.of(call.metadata(carrier.metadata()), new Listener() {
            @Override
            public void afterStart() {
                scope.close();
            }

            @Override
            public void retried(int attempt, Throwable failure) {
                observation.event(Observation.Event.of(RpccObservations.EVENT_RETRY));
            }

            @Override
            public void failedOver(String server, InetSocketAddress failed, InetSocketAddress next,
                                   Throwable failure) {
                observation.event(Outcomes.failover(server, failed, next, failure));
            }

            @Override
            public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
                if (result != null) {
                    observation.event(Observation.Event.of(RpccObservations.EVENT_RESULT))
                            .highCardinalityKeyValue(RpccObservations.HOPS, Integer.toString(result.hops()));
                    if (!result.replies().isEmpty()) {
                        observation.highCardinalityKeyValue(RpccObservations.REPLIES,
                                Integer.toString(result.replies().size()));
                    }
                }
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    if (cause instanceof ChainCancelledException) {
                        observation.event(Observation.Event.of(RpccObservations.EVENT_CANCELLED));
                    } else if (cause instanceof ChainTimeoutException) {
                        observation.event(Observation.Event.of(RpccObservations.EVENT_TIMED_OUT));
                    }
                    Outcomes.failed(observation, cause);
                } else {
                    Outcomes.succeeded(observation);
                }
                observation.stop();
            }
        });
    }
}
