package io.rpcc.server.internal;

import java.io.InputStream;

/**
 * The data stream of the hop whose service function runs on the current thread: set by
 * {@link ServiceHop} around the call, read by the adapter of a {@code StreamingServiceFunction}
 * ({@code RpccServer.Builder.streamingService}). An empty stream for a hop without one.
 */
public final class StreamInputs {
    private static final ThreadLocal<InputStream> CURRENT = new ThreadLocal<>();

    private StreamInputs() {
    }

    /** The current hop's data stream (empty if it has none). */
    public static InputStream current() {
        InputStream in = CURRENT.get();
        return in != null ? in : InputStream.nullInputStream();
    }

    /** Makes {@code in} the current stream until the returned scope is closed. */
    static AutoCloseable bind(InputStream in) {
        InputStream before = CURRENT.get();
        CURRENT.set(in);
        return () -> CURRENT.set(before);
    }
}
