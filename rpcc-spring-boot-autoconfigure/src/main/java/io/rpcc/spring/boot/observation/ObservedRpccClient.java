package io.rpcc.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The application's {@link RpccClient}, with one {@value RpccObservations#CHAIN} observation per
 * chain it starts, from the start until the result or the error (see {@link RpccObservations} for its
 * keys). Inject it where chains should be observed; {@link #client()} is the client itself, whose
 * chains are not observed. With the {@link ObservationRegistry#NOOP} registry (no registry in the
 * application), it costs next to nothing.
 *
 * <pre>{@code
 * @Service
 * class Checkout {
 *     private final ObservedRpccClient rpcc;
 *     Checkout(ObservedRpccClient rpcc) { this.rpcc = rpcc; }
 *
 *     Quote checkout(Order order) {
 *         return rpcc.runChain(ChainCall.along(ROUTE, order)).value(Quote.class);
 *     }
 * }
 * }</pre>
 */
public final class ObservedRpccClient {
    private final RpccClient client;
    private final ObservationRegistry registry;
    private final String clientTag;

    /** Observes the chains of {@code client} in {@code registry}, tagged with the client's node name. */
    public ObservedRpccClient(RpccClient client, ObservationRegistry registry) {
        this(client, registry, client.name());
    }

    /**
     * Observes the chains of {@code client} in {@code registry}, tagged {@value RpccObservations#CLIENT}
     * = {@code clientTag}: a name that stays the same across restarts and replicas (the auto-configuration
     * gives {@code rpcc.client.name} if set, else {@code spring.application.name}), where the node's name
     * may have a random suffix.
     */
    public ObservedRpccClient(RpccClient client, ObservationRegistry registry, String clientTag) {
        this.client = Objects.requireNonNull(client, "client");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clientTag = Objects.requireNonNull(clientTag, "clientTag");
    }

    /** The client itself (its chains are not observed). */
    public RpccClient client() {
        return client;
    }

    /**
     * {@link RpccClient#startChain(ChainCall)}, observed until the returned future completes (the
     * future is the client's: cancelling it cancels the chain).
     */
    public CompletableFuture<ChainResult> startChain(ChainCall call) {
        Observation observation = start(call);
        CompletableFuture<ChainResult> future;
        try (Observation.Scope scope = observation.openScope()) {
            future = client.startChain(call);
        }
        future.whenComplete((result, error) -> end(observation, result, error));
        return future;
    }

    /** {@link RpccClient#runChain(ChainCall)}, observed: waits for the result, throws a {@link ChainException}. */
    public ChainResult runChain(ChainCall call) {
        Observation observation = start(call);
        ChainResult result;
        try (Observation.Scope scope = observation.openScope()) {
            result = client.runChain(call);
        } catch (RuntimeException | Error e) {
            end(observation, null, e);
            throw e;
        }
        end(observation, result, null);
        return result;
    }

    /** {@link RpccClient#call(String, String, Object)} (a plain RPC: a one-hop chain), observed. */
    public CompletableFuture<ChainResult> call(String server, String serviceFunction, @Nullable Object params) {
        return startChain(ChainCall.to(server, serviceFunction).params(params));
    }

    /**
     * {@link RpccClient#startChainWithReplies(ChainCall, Class)}, observed until the chain's result
     * ({@link ReplySet#result()}) completes.
     */
    public <T> ReplySet<T> startChainWithReplies(ChainCall call, Class<T> replyType) {
        Observation observation = start(call);
        ReplySet<T> replies;
        try (Observation.Scope scope = observation.openScope()) {
            replies = client.startChainWithReplies(call, replyType);
        }
        replies.result().whenComplete((result, error) -> end(observation, result, error));
        return replies;
    }

    private Observation start(ChainCall call) {
        return Observation.createNotStarted(RpccObservations.CHAIN, registry)
                .contextualName("rpcc chain " + call.server() + " " + call.serviceFunction())
                .lowCardinalityKeyValue(RpccObservations.CLIENT, clientTag)
                .lowCardinalityKeyValue(RpccObservations.SERVER, call.server())
                .lowCardinalityKeyValue(RpccObservations.SERVICE, call.serviceFunction())
                .start();
    }

    private static void end(Observation observation, @Nullable ChainResult result, @Nullable Throwable error) {
        if (error != null) {
            RpccObservations.failed(observation, error);
        } else {
            RpccObservations.succeeded(observation);
            if (result != null) {
                observation.highCardinalityKeyValue(RpccObservations.HOPS, Integer.toString(result.hops()));
            }
        }
        observation.stop();
    }
}
