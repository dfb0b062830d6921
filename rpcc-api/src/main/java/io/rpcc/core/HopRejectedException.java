package io.rpcc.core;

import java.util.List;

/**
 * A server refused to run or forward a hop: a server interceptor (or a service function) threw it,
 * e.g. because the chain's {@link Metadata} carries no valid credential. At the originator it names
 * the hop and host that refused, with the reason given there.
 *
 * <pre>{@code
 * // at a server, in a ServerInterceptor
 * if (!tokens.isValid(context.metadata().get("authorization"))) {
 *     throw new HopRejectedException("no valid credential in metadata key 'authorization'");
 * }
 * }</pre>
 */
public class HopRejectedException extends ChainException {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal to throw at a server, with {@code reason} (sent to the originator, so it must not
     * hold secrets); the hop, host and path are filled in at the originator.
     */
    public HopRejectedException(String reason) {
        super(new ChainFailure(HopRejectedException.class.getName(), reason, "", 0, List.of(), List.of(), List.of(),
                List.of()));
    }

    /** The exception at the originator, for {@code failure}. */
    public HopRejectedException(ChainFailure failure) {
        super(failure);
    }

    /** {@link ChainErrorCode#HOP_REJECTED}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.HOP_REJECTED;
    }
}
