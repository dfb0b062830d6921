package io.rpcc.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Loopback addresses where nothing listens, and nothing will while the test JVM runs: each port is
 * held by a bound TCP socket that neither listens nor connects, so a connection to it is refused,
 * and no node of this JVM or of another test JVM (the suite runs several) can bind it. A port merely
 * closed after use can be handed to the next node that binds port 0, and a test that expects a
 * refusal then reaches that node.
 */
final class DeadAddresses {
    /** The sockets holding the ports, open until the JVM ends. */
    private static final List<Socket> HELD = new ArrayList<>();

    private DeadAddresses() {
    }

    /** A loopback address whose port refuses connections for the rest of this JVM's life. */
    static synchronized InetSocketAddress next() {
        try {
            Socket holder = new Socket();
            holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            HELD.add(holder);
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), holder.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException("could not reserve a loopback port", e);
        }
    }

    /** Frees the port of {@code address} (from {@link #next()}), for a node of the test to bind it now. */
    static synchronized void release(InetSocketAddress address) throws IOException {
        for (Socket holder : HELD) {
            if (holder.getLocalPort() == address.getPort()) {
                HELD.remove(holder);
                holder.close();
                return;
            }
        }
        throw new IllegalArgumentException(address + " was not reserved here");
    }
}
