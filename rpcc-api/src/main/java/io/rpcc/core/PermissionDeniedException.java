package io.rpcc.core;

/**
 * A server refused a hop for who asked for it: the chain's originator could not be proven (its
 * credential is missing or forged, or its hop limit was widened by a node on the way), or the
 * server's chain policy does not let that originator, previous hop or sub-chain creator call the
 * service function. The hop did not run. At the originator it names the hop and host that refused; its message names the service
 * function and the reason given there.
 *
 * <p>What to do: give the originator a certificate the server trusts and that names it, or change
 * the policy at the refusing server ({@code RpccServer.Builder.policy}, or the node's
 * {@code rpcc.policy.*} properties) to allow that originator.
 */
public class PermissionDeniedException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** The exception at the originator, for {@code failure}. */
    public PermissionDeniedException(ChainFailure failure) {
        super(failure);
    }

    /** {@link ChainErrorCode#PERMISSION_DENIED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.PERMISSION_DENIED;
    }
}
