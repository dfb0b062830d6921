package io.rpcc.core.internal.wire;

/**
 * The first frame on a connection, each way: who the peer is, where it listens, and the largest
 * frame it accepts.
 */
public record Hello(String node, String host, int port, int maxFrameSize) {
}
