package io.rpcc.client;

/** Test access to what a client remembers of its chains, for the cancellation tests in other packages. */
public final class ClientProbe {
    private ClientProbe() {
    }

    /** Chains the client's node remembers for cancellation (see {@code ChainTrails}). */
    public static int trackedChains(RpccClient client) {
        return client.trackedChains();
    }
}
