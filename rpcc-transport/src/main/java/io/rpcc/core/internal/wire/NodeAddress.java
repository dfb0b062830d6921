package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * Where a node is reached, as carried in a chain's header: its name, and the host and port it
 * advertises (used when the receiver's name resolver does not know the name).
 *
 * @param node the node's name
 * @param host its advertised host
 * @param port its advertised port
 */
@EngineSpi
public record NodeAddress(String node, String host, int port) {
}
