package io.rpcc.discovery;

import io.rpcc.server.RpccServer;
import java.time.Duration;

/** Closes a name's primary endpoint and waits until the node that forwards to it has seen it go. */
final class PrimaryGone {
    private PrimaryGone() {
    }

    /**
     * Closes {@code primary}, then waits (at most 10 s) until {@code forwarder} has one connection
     * fewer: once it has seen its connection to the primary close, its next hop to that name cannot
     * be handed to the primary and fails over to the backup. (A hop written before that would be lost
     * with the primary; heartbeats and retry handle that case, see the README.)
     */
    static void close(RpccServer primary, RpccServer forwarder) throws InterruptedException {
        int open = forwarder.stats().connectionsOpen();
        primary.close();
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (forwarder.stats().connectionsOpen() >= open && System.nanoTime() < until) {
            Thread.sleep(10);
        }
    }
}
