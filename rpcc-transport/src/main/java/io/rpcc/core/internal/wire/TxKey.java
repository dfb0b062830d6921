package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * Which transaction a participant's work belongs to: one attempt of one atomic chain. It is read
 * from the chain's identity in every hop header ({@link ChainHeader#origin()}, {@link ChainHeader#chainId()},
 * {@link ChainHeader#attempt()}), so it costs no bytes on the wire. A chain restarted after a wound is
 * a new attempt: its work is a new transaction with the old one's stamp.
 *
 * @param origin the originator's node name
 * @param chainId the chain's number at its originator
 * @param attempt which sending of the chain
 */
@EngineSpi
public record TxKey(String origin, long chainId, int attempt) {
    /** The transaction of the hop whose header is {@code h}. */
    public static TxKey of(ChainHeader h) {
        return new TxKey(h.origin(), h.chainId(), h.attempt());
    }

    // equals and hashCode by hand: a key is looked up in the participant's and the originator's tables for
    // every frame of a transaction, and the record's generated ones go through a method handle per component;
    // the chain's number, which tells keys apart most often, is compared first

    @Override
    public boolean equals(Object o) {
        return o instanceof TxKey k && k.chainId == chainId && k.attempt == attempt && java.util.Objects.equals(k.origin, origin);
    }

    @Override
    public int hashCode() {
        return (java.util.Objects.hashCode(origin) * 31 + Long.hashCode(chainId)) * 31 + attempt;
    }

    @Override
    public String toString() {
        return origin + "/" + chainId + "#" + attempt;
    }
}
