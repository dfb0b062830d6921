package io.rpcc.core;

import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/**
 * A service function that reads a data stream as it arrives: it starts as soon as its hop's
 * REQUEST has (its params and the chain's header), while the data sent with the hop
 * ({@code ChainCall.stream} at a client, a {@link StreamedResult} returned by the hop before) still
 * flows in. The data is not a value: it is never held whole, so it may be far larger than a
 * frame or than memory; the sender goes only as fast as this function reads (the receiving node
 * holds at most {@code NodeBuilder.streamWindowBytes} of it).
 *
 * <pre>{@code
 * RpccServer.builder("storage")
 *     .streamingService("store", (params, in) -> Files.copy(in, dir.resolve((String) params)))
 *     .build();
 * }</pre>
 *
 * <p>Reads block until data arrives; they throw a {@link ChainStreamException} if the stream ends
 * early (its sender gave up, its connection closed, it was idle for {@code NodeBuilder.streamIdleTimeout}).
 * A hop called without a stream reads an empty one. What the function leaves unread when it returns
 * is dropped and its sender told to stop. Runs on a worker thread, as every {@link ServiceFunction}.
 */
@FunctionalInterface
public interface StreamingServiceFunction {
    /**
     * Runs the service function.
     *
     * @param params the parameters that the previous chaining function (or the client) chose
     * @param data the hop's data stream, read as it arrives (closing it drops what is left)
     * @return the result, passed to the hop's chaining function (may be {@code null}, or a
     *     {@link StreamedResult} to stream data on to the next hop)
     * @throws Exception any failure; it ends the chain with a {@link ServiceFunctionException}
     */
    @Nullable Object apply(@Nullable Object params, InputStream data) throws Exception;
}
