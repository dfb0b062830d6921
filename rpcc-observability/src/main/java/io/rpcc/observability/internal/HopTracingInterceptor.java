package io.rpcc.observability.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.ServiceFunction;
import io.rpcc.observability.RpccObservations;
import io.rpcc.server.ServerInterceptor;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The parts of a hop as children of its {@link HopTracingDecorator} span: the service function
 * ({@value RpccObservations#SERVICE}) and the chaining function ({@value RpccObservations#CHAINING}),
 * and, for each request the hop sends on (the next hop, a sub-chain's first hop, each branch of a
 * split; a sub-chain's result going back to its creator; a split's opening going to its merge host),
 * a short {@value RpccObservations#SEND} CLIENT span whose context the tracing handlers write into
 * the metadata that request carries ({@link SenderContext} over the metadata): the hop it
 * starts is that span's child. Each observation's parent is the registry's current one, the hop's.
 */
public final class HopTracingInterceptor implements ServerInterceptor {
    private final ObservationRegistry registry;

    /** Records in {@code registry}. */
    public HopTracingInterceptor(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public @Nullable Object interceptService(ChainContext context, String serviceFunction, @Nullable Object params,
                                             ServiceFunction next) throws Exception {
        Observation observation = Observation.createNotStarted(RpccObservations.SERVICE, registry)
                .contextualName("rpcc service " + serviceFunction)
                .lowCardinalityKeyValue(RpccObservations.NODE, context.node())
                .lowCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, serviceFunction)
                .start();
        try (Observation.Scope ignored = observation.openScope()) {
            return next.apply(params);
        } catch (Exception | Error e) {
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    @Override
    public NextHop interceptChaining(ChainContext context, ChainState state, @Nullable Object result,
                                     ChainingFunction next) throws Exception {
        Observation observation = Observation.createNotStarted(RpccObservations.CHAINING, registry)
                .contextualName("rpcc chaining")
                .lowCardinalityKeyValue(RpccObservations.NODE, context.node())
                .start();
        try (Observation.Scope ignored = observation.openScope()) {
            return next.apply(state, result);
        } catch (Exception | Error e) {
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    @Override
    public Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
        return send(context, metadata, next.server(), next.serviceFunction(),
                "rpcc send " + next.server() + " " + next.serviceFunction());
    }

    /**
     * A send span for a sub-chain's result going back to its creator, or a split's opening going to
     * its merge host: the hop that resumes the chain there (the parent's chaining function, the
     * merge) is its child.
     */
    @Override
    public Metadata interceptHandBack(ChainContext context, HandBack handBack, Metadata metadata) {
        String what = handBack.name().toLowerCase(Locale.ROOT);
        return send(context, metadata, null, what, "rpcc send (" + what + ")");
    }

    /** {@code metadata} with the context of a send span, child of the current (the hop's) span, written in. */
    private Metadata send(ChainContext context, Metadata metadata, @Nullable String server, String serviceFunction,
                          String name) {
        MetadataCarrier carrier = new MetadataCarrier(metadata);
        SenderContext<MetadataCarrier> sender = new SenderContext<>(MetadataCarrier.SETTER, Kind.CLIENT);
        sender.setCarrier(carrier);
        sender.setRemoteServiceName(server);
        Observation observation = Observation.createNotStarted(RpccObservations.SEND, () -> sender, registry)
                .contextualName(name)
                .lowCardinalityKeyValue(RpccObservations.NODE, context.node())
                // high cardinality: a chaining function (code a client sent) names them, so they stay off meters
                .highCardinalityKeyValue(RpccObservations.SERVICE_FUNCTION, serviceFunction);
        if (server != null) {
            observation.highCardinalityKeyValue(RpccObservations.SERVER, server);
        }
        observation.start() // the handlers write the send span's context into the carrier
                .stop(); // the request leaves now: what it starts is this span's child
        return carrier.metadata();
    }
}
