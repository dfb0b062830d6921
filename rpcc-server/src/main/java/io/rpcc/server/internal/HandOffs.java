package io.rpcc.server.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The frames a server's hops hand on, from when they are sent until they are written or have
 * failed: a chain's result or a hop's failure to the originator, the request for the next hop or
 * for the chaining proxy, a hop's QUIET credit. Sending one may first need a connection and its
 * handshake, so a hop whose code has returned is not done until its frame is out: a draining server
 * waits for these too (see {@link RunningHops#size()}), since closing its connections would lose them.
 */
final class HandOffs {
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Runnable changed;

    /** Hand-offs that run {@code changed} whenever one completes (a draining server looks again). */
    HandOffs(Runnable changed) {
        this.changed = changed;
    }

    /**
     * Counts {@code send} until it completes, and returns it. Pass the future that completes last
     * (after any retry or report it starts), so that the count does not drop between the two.
     */
    <T> CompletableFuture<T> track(CompletableFuture<T> send) {
        inFlight.incrementAndGet();
        send.whenComplete((v, e) -> {
            inFlight.decrementAndGet();
            changed.run();
        });
        return send;
    }

    /** Frames sent and not yet written or failed. */
    int size() {
        return inFlight.get();
    }
}
