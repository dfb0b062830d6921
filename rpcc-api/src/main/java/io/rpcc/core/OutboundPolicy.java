package io.rpcc.core;

/**
 * Which addresses named in a chain's header a node connects to, to send the chain's results,
 * replies and failures (see docs/reference/security.md, "Outbound connections"). A REQUEST names
 * its originator, its reply-to node and the nodes of its return stack by name, host and port; a
 * node reaches a name its {@link NameResolver} knows at the resolver's address, and otherwise at the
 * host and port the header gives. Whatever the policy, a node's outbound connections are bounded
 * ({@code NodeBuilder.maxOutboundConnections}, {@code NodeBuilder.maxDialsInProgress}).
 */
public enum OutboundPolicy {
    /**
     * The default: a REQUEST is taken only if every address it names that the node would connect to
     * is vouched for: the node's resolver knows the name; or the host is the IP address the REQUEST
     * came from (a peer can make the node connect only to itself); or the REQUEST came from a vouched
     * peer (authenticated by mutual TLS, or, in plaintext, from the IP address of a node the resolver
     * knows), which vouches for what it names. Any other REQUEST is refused before its hop runs
     * ({@link Refusal#UNVOUCHED_ADDRESS}, a {@link HopRejectedException} back on the connection it
     * came on).
     */
    VOUCHED,
    /**
     * Connects to any address a REQUEST names (as rpcc did before this policy existed): only for a network where every
     * peer is trusted (a development machine, a closed test bed). The outbound bounds still hold.
     */
    ANY
}
