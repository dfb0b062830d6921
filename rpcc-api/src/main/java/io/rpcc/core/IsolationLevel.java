package io.rpcc.core;

/**
 * How isolated a hop's functions run at a server, as the server's chain policy chose for the chain's
 * callers ({@link ChainContext#isolation()}).
 */
public enum IsolationLevel {
    /** In the server's own process (the functions are trusted as much as the originator is). */
    IN_PROCESS,
    /**
     * Apart from the server's process, where the server's function runtime offers that; a runtime
     * that does not yet isolate runs the hop in process and the level only records the policy's wish.
     */
    ISOLATED
}
