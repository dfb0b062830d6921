package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import org.jspecify.annotations.Nullable;

/**
 * Which chain, and which sending of it, a hop request belongs to (part of a {@link ChainHeader}).
 *
 * @param chainId the chain's number at its originator
 * @param secret the chain's secret, echoed in every frame to the originator
 * @param originator who started the chain: its node name (its identity, e.g. in chain ids) and its
 *     advertised host and port
 * @param attempt which sending of the chain by its originator this is: 1, or more for a chain sent
 *     again with the same id and secret (idempotent retry, paper 3.9)
 * @param credential the originator's signature over the chain (between TLS nodes), or {@code null}
 *     (plaintext, or a chain whose first hop is its originator's TLS peer)
 * @param tx the stamp of the chain's transaction if the chain is atomic, else {@code null} (header
 *     field 23); the attempt is the transaction ({@link TxKey})
 */
@EngineSpi
public record ChainIdentity(long chainId, ChainSecret secret, NodeAddress originator, int attempt,
                            @Nullable ChainCredential credential, @Nullable TxStamp tx) {
    /** The identity of a chain that is not atomic. */
    public ChainIdentity(long chainId, ChainSecret secret, NodeAddress originator, int attempt,
                         @Nullable ChainCredential credential) {
        this(chainId, secret, originator, attempt, credential, null);
    }

    /** An identity without a credential. */
    public ChainIdentity(long chainId, ChainSecret secret, NodeAddress originator, int attempt) {
        this(chainId, secret, originator, attempt, null);
    }
}
