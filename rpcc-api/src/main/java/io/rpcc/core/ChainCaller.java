package io.rpcc.core;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Who asks a server to run a hop: the chain's originator, the hop before (the node that sent the
 * request) and, inside a nested sub-chain, the server that started the sub-chain.
 *
 * <p>Between nodes running with TLS, the originator is <em>verified</em>: it signed the chain's
 * identity with the private key of a certificate the server trusts and that names it (or it is the
 * previous hop itself, authenticated by its TLS certificate). In plaintext nothing can be proven:
 * the originator is the name the request claims, {@link #originatorVerified()} is {@code false}.
 *
 * @param originator the originator's node name (verified, or as claimed)
 * @param originatorVerified whether a signature or the TLS connection proved {@code originator}
 * @param previousHop who sent the request: {@code "node:<name>"} (authenticated by TLS),
 *     {@code "address:<ip>"} (plaintext: only the remote address is known), or {@code "local"} (this
 *     node itself)
 * @param subChainCreator the server that started the sub-chain the hop runs in (verified like the
 *     originator), or {@code null} outside sub-chains
 */
public record ChainCaller(String originator, boolean originatorVerified, String previousHop,
                          @Nullable String subChainCreator) {
    public ChainCaller {
        Objects.requireNonNull(originator, "originator");
        Objects.requireNonNull(previousHop, "previousHop");
    }

    /** The sub-chain creator, if the hop runs in a nested sub-chain. */
    public Optional<String> creator() {
        return Optional.ofNullable(subChainCreator);
    }

    /** E.g. {@code "originator 'client-1' (verified), previous hop node:a"}. */
    public String describe() {
        return "originator '" + originator + "' (" + (originatorVerified ? "verified" : "unauthenticated")
                + "), previous hop " + previousHop + (subChainCreator == null ? "" : ", sub-chain creator '"
                + subChainCreator + "'");
    }
}
