package io.rpcc.legacy;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a wrapper tells the legacy service about who started the chain (paper section 3.5). The
 * legacy service sees every call coming from the wrapper's node, so an address-based access check
 * there sees only that node; the identity goes along instead as headers (gRPC metadata, HTTP
 * headers):
 *
 * <ul>
 *   <li>{@value #AUTHORIZATION}: the chain's own credential, the text in its metadata key
 *       {@value #AUTHORIZATION} (set by the originator or its client interceptor; a value without a
 *       scheme gets {@code "Bearer "} in front); if the chain carries none, the token configured with
 *       {@link #orToken}, as {@code Bearer <token>}; else no such header.</li>
 *   <li>{@value #ORIGINATOR}: the node that started the chain ({@link ChainCaller#originator()}), and
 *       {@value #ORIGINATOR_VERIFIED}: {@code true} when TLS and the chain's signature proved it,
 *       {@code false} when it is only what the request claims (plaintext nodes).</li>
 *   <li>{@value #CHAIN}: the chain's id, for the legacy service's logs.</li>
 * </ul>
 *
 * <pre>{@code
 * LegacyIdentity.fromChain()                       // the chain's credential only
 * LegacyIdentity.fromChain().orToken(serviceToken) // else this node's own token for the service
 * }</pre>
 */
public final class LegacyIdentity {
    /** Header (and chain metadata key) of the credential: {@code authorization}. */
    public static final String AUTHORIZATION = "authorization";
    /** Header naming the chain's originator: {@code x-rpcc-originator}. */
    public static final String ORIGINATOR = "x-rpcc-originator";
    /** Header saying whether the originator was verified: {@code x-rpcc-originator-verified}. */
    public static final String ORIGINATOR_VERIFIED = "x-rpcc-originator-verified";
    /** Header carrying the chain's id: {@code x-rpcc-chain}. */
    public static final String CHAIN = "x-rpcc-chain";

    private static final LegacyIdentity FROM_CHAIN = new LegacyIdentity(AUTHORIZATION, null);

    private final String metadataKey;
    private final @Nullable String token;

    private LegacyIdentity(String metadataKey, @Nullable String token) {
        this.metadataKey = metadataKey;
        this.token = token;
    }

    /** The chain's credential (its metadata key {@value #AUTHORIZATION}) and originator; no token of its own. */
    public static LegacyIdentity fromChain() {
        return FROM_CHAIN;
    }

    /**
     * This identity, sending {@code Bearer <token>} when the chain carries no credential of its own
     * (the originator is still named in {@value #ORIGINATOR}).
     */
    public LegacyIdentity orToken(String token) {
        if (Objects.requireNonNull(token, "token").isBlank() || token.indexOf('\n') >= 0 || token.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a legacy token must be non-blank text on one line");
        }
        return new LegacyIdentity(metadataKey, token);
    }

    /**
     * This identity, reading the chain's credential from metadata key {@code key} rather than
     * {@value #AUTHORIZATION} (it is still sent as the {@value #AUTHORIZATION} header).
     *
     * @throws IllegalArgumentException if {@code key} is not a valid metadata key
     */
    public LegacyIdentity credentialKey(String key) {
        io.rpcc.core.Metadata.checkKey(key);
        return new LegacyIdentity(key, token);
    }

    /**
     * The headers to send for the chain of {@code context}, lower-case names in a fixed order:
     * {@value #AUTHORIZATION} (if there is a credential), {@value #ORIGINATOR},
     * {@value #ORIGINATOR_VERIFIED}, {@value #CHAIN}.
     */
    public Map<String, String> headers(ChainContext context) {
        Map<String, String> h = new LinkedHashMap<>();
        String credential = chainCredential(context);
        if (credential != null) {
            h.put(AUTHORIZATION, credential.indexOf(' ') > 0 ? credential : "Bearer " + credential);
        } else if (token != null) {
            h.put(AUTHORIZATION, "Bearer " + token);
        }
        ChainCaller caller = context.caller();
        h.put(ORIGINATOR, caller.originator());
        h.put(ORIGINATOR_VERIFIED, Boolean.toString(caller.originatorVerified()));
        h.put(CHAIN, context.chainId());
        return h;
    }

    private @Nullable String chainCredential(ChainContext context) {
        io.rpcc.core.Metadata m = context.metadata();
        if (!m.contains(metadataKey) || m.isBytes(metadataKey)) {
            return null;
        }
        String v = m.get(metadataKey);
        return v == null || v.isBlank() || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0 ? null : v.strip();
    }

    @Override
    public String toString() {
        return "LegacyIdentity[chain credential from metadata '" + metadataKey + "'"
                + (token == null ? "" : ", else a configured token") + "]";
    }
}
