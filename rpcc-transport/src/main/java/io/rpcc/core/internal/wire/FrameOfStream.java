package io.rpcc.core.internal.wire;

/**
 * A frame of one reply stream ({@link ReplyFrame}, {@link WindowUpdateFrame}): it carries the
 * stream's {@link ReplyStream}, and reads its two parts directly.
 */
public interface FrameOfStream extends FrameToChain {
    /** The reply stream: the hop, and the node that runs it. */
    ReplyStream stream();

    /** The hop's number. */
    default int hop() {
        return stream().hop();
    }

    /** The node that runs the hop. */
    default String host() {
        return stream().host();
    }
}
