package io.rpcc.core.internal.wire;

/**
 * The first frame on a connection, each way: the protocol versions the node speaks, who it is,
 * where it listens, and the largest frame it accepts. Its layout is the same in every protocol
 * version (see {@link FrameType}), so any two nodes can tell whether they have a version in common.
 *
 * @param versions the protocol versions the sender speaks
 * @param node the sender's node name
 * @param host the host the sender listens on
 * @param port the port the sender listens on
 * @param maxFrameSize the largest frame the sender accepts, in bytes
 */
public record Hello(VersionRange versions, String node, String host, int port, int maxFrameSize) {
    /** A HELLO announcing the versions this build speaks. */
    public Hello(String node, String host, int port, int maxFrameSize) {
        this(VersionRange.SUPPORTED, node, host, port, maxFrameSize);
    }
}
