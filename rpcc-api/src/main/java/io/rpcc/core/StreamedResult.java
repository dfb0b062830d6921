package io.rpcc.core;

import java.io.InputStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A service function's result with a data stream for the next hop: {@link #value()} goes to the
 * hop's chaining function as any result does; {@link #data()} streams, in chunks and within the
 * receiver's room, to the next hop that chaining function chooses, whose
 * {@link StreamingServiceFunction} reads it as it arrives (paper 5.3.1's copy: the source's read
 * streams straight into the destination's write). The stream is read on a worker thread and closed
 * when sent, or when the chain ends otherwise.
 *
 * <p>Only a next hop takes a stream: a hop whose chain ends (or returns from a sub-chain, or
 * splits) with a {@code StreamedResult} fails with a {@code ServiceFunctionException} saying so.
 * A streamed hop's outcome is not kept for a chain sent again: its service function runs again.
 *
 * @param value the result for the chaining function
 * @param data the bytes for the next hop
 */
public record StreamedResult(@Nullable Object value, InputStream data) {
    public StreamedResult {
        Objects.requireNonNull(data, "data");
    }

    /** {@code value}, with {@code data} streamed to the next hop. */
    public static StreamedResult of(@Nullable Object value, InputStream data) {
        return new StreamedResult(value, data);
    }
}
