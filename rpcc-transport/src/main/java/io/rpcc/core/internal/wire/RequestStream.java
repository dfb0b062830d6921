package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.io.InputStream;

/**
 * The data stream a REQUEST carries (header field 22): at its sender, the source its bytes are read
 * from; at its receiver, the bytes as they arrive. A request without a stream has none ({@code null}).
 */
@EngineSpi
public interface RequestStream {
    /** The stream's id on its connection (its sender's; above 0). */
    long id();

    /**
     * The bytes, to read once: at the receiver as they arrive (reads block, and fail with a
     * {@link io.rpcc.core.ChainStreamException} if the stream ends early); for a request that stays on
     * its node, the source itself.
     */
    InputStream input();

    /** Gives up the stream, if it is not over: the sender is told to stop, what is held is dropped. */
    void discard(String why);
}
