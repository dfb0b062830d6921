package io.rpcc.observability.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.observability.RpccObservations;
import java.net.InetSocketAddress;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.HopOutcome;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One {@value RpccObservations#HOP} observation (a SERVER span) per hop a server runs, from the
 * hop's start until it is done, ended with the hop's outcome. Its parent is the trace context the
 * hop's metadata carries (a {@link ReceiverContext} over the metadata: the tracing handlers extract
 * it); it is current on the hop's thread while the hop runs there, so that the service function's,
 * the chaining function's and the send observations of {@link HopTracingInterceptor} nest under it.
 */
public final class HopTracingDecorator implements HopDecorator {
    private final ObservationRegistry registry;

    /** How {@code ChainCaller.previousHop()} begins for a peer whose node name TLS proved. */
    private static final String AUTHENTICATED_PEER = "node:";

    private final FunctionTags functions = new FunctionTags();

    /** Records in {@code registry}. */
    public HopTracingDecorator(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Listener decorate(Start start) {
        ChainContext context = start.context();
        String service = functions.of(start);
        String kind = start.kind().name().toLowerCase(Locale.ROOT);
        ReceiverContext<Metadata> receiver = new ReceiverContext<>(MetadataCarrier.GETTER,
                io.micrometer.observation.transport.Kind.SERVER);
        receiver.setCarrier(context.metadata());
        String previousHop = context.caller().previousHop();
        if (previousHop.startsWith(AUTHENTICATED_PEER)) { // a node TLS proved; in plaintext only an address is known
            receiver.setRemoteServiceName(previousHop.substring(AUTHENTICATED_PEER.length()));
        }
        Observation observation = Observation.createNotStarted(RpccObservations.HOP, () -> receiver, registry)
                .contextualName(start.kind() == Kind.SERVICE ? "rpcc hop " + service : "rpcc hop (" + kind + ")")
                .lowCardinalityKeyValue(RpccObservations.NODE, context.node())
                .lowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, service)
                .lowCardinalityKeyValue(RpccObservations.HOP_KIND, kind)
                .highCardinalityKeyValue(RpccObservations.CHAIN_ID, context.chainId())
                .highCardinalityKeyValue(RpccObservations.HOP_NUMBER, Integer.toString(context.hop()))
                .highCardinalityKeyValue(RpccObservations.BRANCH, context.branch().toString())
                .highCardinalityKeyValue(RpccObservations.ORIGINATOR, context.originator())
                .start();
        Observation.Scope scope = observation.openScope();
        return new Listener() {
            @Override
            public void afterRun() {
                scope.close();
            }

            @Override
            public void replied() {
                observation.event(Observation.Event.of(RpccObservations.EVENT_REPLY));
            }

            @Override
            public void failedOver(String server, InetSocketAddress failed, InetSocketAddress next,
                                   Throwable failure) {
                observation.event(Outcomes.failover(server, failed, next, failure));
            }

            @Override
            public void ended(HopOutcome outcome, @Nullable HopTiming timing) {
                observation.lowCardinalityKeyValue(RpccObservations.HOP_OUTCOME, name(outcome));
                ChainException failure = outcome.failure();
                if (failure != null) {
                    Outcomes.failed(observation, failure);
                } else if (outcome instanceof HopOutcome.Cancelled) {
                    observation.lowCardinalityKeyValue(RpccObservations.OUTCOME, "ERROR")
                            .lowCardinalityKeyValue(RpccObservations.ERROR_CODE, "CANCELLED")
                            .event(Observation.Event.of(RpccObservations.EVENT_CANCELLED));
                } else {
                    Outcomes.succeeded(observation);
                }
                observation.stop();
            }
        };
    }

    /** {@code FORWARDED}, {@code FINISHED}, {@code SUB_CHAIN_STARTED}, ...: the outcome's type in upper snake case. */
    static String name(HopOutcome outcome) {
        return switch (outcome) {
            case HopOutcome.Forwarded f -> "FORWARDED";
            case HopOutcome.Finished f -> "FINISHED";
            case HopOutcome.SubChainStarted s -> "SUB_CHAIN_STARTED";
            case HopOutcome.Returned r -> "RETURNED";
            case HopOutcome.BranchEnded b -> "BRANCH_ENDED";
            case HopOutcome.Split s -> "SPLIT";
            case HopOutcome.Delegated d -> "DELEGATED";
            case HopOutcome.Failed f -> "FAILED";
            case HopOutcome.Cancelled c -> "CANCELLED";
            case HopOutcome.Refused r -> "REFUSED";
        };
    }
}
