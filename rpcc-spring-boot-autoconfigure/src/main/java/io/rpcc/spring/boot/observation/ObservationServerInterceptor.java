package io.rpcc.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.ServiceFunction;
import io.rpcc.server.ServerInterceptor;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Observes every hop's service function at a server: one {@value RpccObservations#HOP} observation
 * per hop (see {@link RpccObservations} for its keys), current while the function runs, so that
 * what the function observes nests under it. The auto-configuration adds it to the server when the
 * application has an {@link ObservationRegistry}.
 */
public final class ObservationServerInterceptor implements ServerInterceptor {
    private final ObservationRegistry registry;

    /** Records observations in {@code registry}. */
    public ObservationServerInterceptor(ObservationRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public @Nullable Object interceptService(ChainContext context, String serviceFunction, @Nullable Object params,
                                             ServiceFunction next) throws Exception {
        Observation observation = Observation.createNotStarted(RpccObservations.HOP, registry)
                .contextualName("rpcc hop " + serviceFunction)
                .lowCardinalityKeyValue(RpccObservations.NODE, context.node())
                .lowCardinalityKeyValue(RpccObservations.SERVICE, serviceFunction)
                .highCardinalityKeyValue(RpccObservations.CHAIN_ID, context.chainId())
                .highCardinalityKeyValue(RpccObservations.HOP_NUMBER, Integer.toString(context.hop()))
                .highCardinalityKeyValue(RpccObservations.ORIGINATOR, context.originator())
                .start();
        try (Observation.Scope scope = observation.openScope()) {
            Object result = next.apply(params);
            RpccObservations.succeeded(observation);
            return result;
        } catch (Exception | Error e) {
            // the server ends the chain with HOP_REJECTED for a HopRejectedException, else SERVICE_FUNCTION_FAILED
            ChainErrorCode code = e instanceof HopRejectedException
                    ? ChainErrorCode.HOP_REJECTED : ChainErrorCode.SERVICE_FUNCTION_FAILED;
            observation.lowCardinalityKeyValue(RpccObservations.OUTCOME, "ERROR")
                    .lowCardinalityKeyValue(RpccObservations.ERROR_CODE, code.name()).error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }
}
