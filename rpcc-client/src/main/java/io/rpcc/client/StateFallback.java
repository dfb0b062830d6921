package io.rpcc.client;

/**
 * Whether a chain's state goes with it to the servers, or stays at the client when it is too large
 * for the links it would cross (paper sections 5.2.2 and 6, "fall-back to standard RPC"). A chain
 * in chain mode sends its state with each hop, so that the server runs the chaining function; this
 * saves the round trip back to the client but costs the state's transmission. Set per call with
 * {@link ChainCall#stateFallback} or for a client with {@code RpccClient.Builder.stateFallback}. See
 * docs/guides/large-state.md.
 */
public enum StateFallback {
    /** Always carry the state: chain mode (the default). */
    NEVER,
    /**
     * Before each hop whose chaining function needs the state, the client compares what carrying it
     * would cost with what keeping it would (from the connections' measured round trips and
     * throughput) and picks the cheaper: kept, the hop's result comes back and the client runs the
     * chaining function, as in interactive mode; carried, the chain goes on in chain mode from that
     * server. The choices are in {@code ChainResult.stateChoices()} and the profile.
     */
    ADAPTIVE,
    /** Never carry the state: every chaining function runs at the client (interactive mode). */
    ALWAYS
}
