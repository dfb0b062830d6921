package io.rpcc.core.internal.wire;

/**
 * A frame back from a hop about one chain ({@link ChainResultFrame}, {@link ReplyFrame},
 * {@link WindowUpdateFrame}): it carries the chain's {@link ChainKey}, and reads its two parts
 * directly.
 */
public interface FrameToChain {
    /** The chain and its secret. */
    ChainKey chain();

    /** The chain's number at the node the frame goes to. */
    default long chainId() {
        return chain().chainId();
    }

    /** The chain's secret, which the node checks before it takes the frame. */
    default ChainSecret secret() {
        return chain().secret();
    }
}
