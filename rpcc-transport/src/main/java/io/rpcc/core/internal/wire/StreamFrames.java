package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The frames of a hop's data stream (protocol version 8): a REQUEST announces a stream (header field
 * 22, {@link RequestStream}); its bytes follow on the same connection in {@link Data} frames, within
 * the room the receiver grants with {@link Credit} frames, up to an {@link End}; the receiver stops
 * the sender with a {@link Cancel}. Stream ids are the sender's, unique among its open streams on a connection.
 */
@EngineSpi
public final class StreamFrames {
    /**
     * The room every stream starts with: bytes its sender may send before any STREAM_CREDIT (so that
     * the first data travels right behind the REQUEST, one crossing and not three).
     */
    public static final int INITIAL_WINDOW = 256 * 1024;

    private StreamFrames() {
    }

    /** STREAM_DATA: the next bytes of stream {@code stream}. */
    public record Data(long stream, byte[] data) {
        public Data {
            Objects.requireNonNull(data, "data");
        }
    }

    /**
     * STREAM_END: stream {@code stream} is over after {@code total} bytes: complete if
     * {@code abortMessage} is {@code null}, else its sender gave up, saying why.
     */
    public record End(long stream, long total, @Nullable String abortMessage) {
        /** Whether the stream ended early. */
        public boolean aborted() {
            return abortMessage != null;
        }
    }

    /** STREAM_CREDIT: the receiver of stream {@code stream} grants {@code bytes} more room. */
    public record Credit(long stream, long bytes) {
    }

    /** STREAM_CANCEL: the receiver of stream {@code stream} wants no more of it, saying why. */
    public record Cancel(long stream, String message) {
        public Cancel {
            Objects.requireNonNull(message, "message");
        }
    }
}
