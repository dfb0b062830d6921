package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The next hop's server (or the chain's originator) could not be reached because the two nodes
 * could not authenticate each other over TLS: a certificate that is not signed by a trusted CA,
 * that has expired or is not yet valid, that does not carry the name of the node it was presented
 * for, or a peer that does not speak TLS at all. The message names the node, its address and what
 * to change. {@link #host()} is the node that tried to reach the other.
 *
 * <p>A subclass of {@link HopUnreachableException}: code that handles unreachable hops handles
 * this one too, and code that cares can tell a configuration or security problem (retrying does
 * not help) from a network one.
 */
public class PeerAuthenticationException extends HopUnreachableException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public PeerAuthenticationException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public PeerAuthenticationException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#PEER_AUTHENTICATION}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.PEER_AUTHENTICATION;
    }
}
