package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * Two nodes could not talk because they have no rpcc protocol version in common: one of them runs
 * a build too old (or too new) for the other. The message names both nodes' versions and which
 * node to upgrade. {@link #host()} is the node that tried to reach the other.
 *
 * <p>A subclass of {@link HopUnreachableException}: code that handles unreachable hops handles this
 * one too; unlike a network failure, retrying does not help until one of the nodes is upgraded.
 */
public class ProtocolVersionException extends HopUnreachableException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public ProtocolVersionException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ProtocolVersionException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** {@link ChainErrorCode#PROTOCOL_VERSION}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.PROTOCOL_VERSION;
    }
}
