package io.rpcc.client;

import io.rpcc.core.UnstableApi;

/**
 * Code that a client runs before it starts each chain, for what concerns all chains alike: adding
 * credentials or trace context to the chain's metadata, checking or rewriting calls. Registered with
 * {@code RpccClient.builder().interceptor(...)}; modelled on gRPC's {@code ClientInterceptor}.
 *
 * <pre>{@code
 * RpccClient client = RpccClient.builder()
 *     .interceptor(call -> call.metadata("authorization", tokens.current()))
 *     .build();
 * }</pre>
 *
 * <p>Interceptors run in the order they were registered, each receiving the call the previous one
 * returned, on the thread that starts the chain, for every chain mode (chain, interactive, with
 * replies). An exception thrown by one is how the start fails: {@code runChain} and
 * {@code startChainWithReplies} throw it, {@code startChain} returns a future failed with it.
 * Interceptors run inside the client's {@link ChainDecorator}s, which also see how each call ended.
 */
@UnstableApi
@FunctionalInterface
public interface ClientInterceptor {

    /**
     * Returns the call to start instead of {@code call}: the same, or a changed copy (e.g. with
     * {@link ChainCall#metadata(String, String)}).
     *
     * @param call the call as the application (and earlier interceptors) made it
     * @return the call to start
     */
    ChainCall interceptStart(ChainCall call);
}
