package io.rpcc.core.internal.transport;

import io.rpcc.core.NodeTls;
import io.rpcc.core.internal.wire.ChainCredential;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.spi.EngineSpi;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Signs the chains a TLS node starts with its private key, and checks the credentials of the chains
 * that reach it (see {@link ChainCredential}): the signer's certificate chain is valid against the
 * node's trusted CAs and names the signer, the signature holds, and the header claims no larger hop
 * limit and no other first hop than the signer signed. The signed deadline is the authority on how
 * long the chain lives: a hop runs under the smaller of the budget its header claims and what the
 * signed deadline leaves (plus {@link #clockSkew() clock skew}) when it arrives
 * ({@link #budgetNanos}), so a claim that grew on the way (a frame that waited to be read longer
 * than the skew, or a node that rewrote it) is cut back rather than refused: it cannot make the chain
 * live longer. What a signature check found is kept per credential (a chain's many hops, and
 * the hops of its retries, check it once), and what the check of a certificate chain against the
 * trusted CAs found per certificate chain for a minute (a node signs all its chains with one), each in
 * a table of at most {@link #CACHE_ENTRIES} entries that starts afresh when full; the claims that
 * change from hop to hop, and the leaf certificate's validity dates, are checked every time.
 */
@EngineSpi
public final class ChainCredentials {
    /** The most credentials whose check is remembered. */
    public static final int CACHE_ENTRIES = 10_000;
    /** How much later than signed a header's deadline may be, by default: the nodes' clocks differ. */
    public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(5);
    private static final String OK = "";
    /** How far from now a signed deadline is taken as it is (about 3 years; further is cut to this). */
    private static final long MAX_LEFT_MILLIS = TimeUnit.DAYS.toMillis(1000);

    private final PrivateKey key;
    private final List<byte[]> certificates;
    private final PeerTrustManager trust;
    private final long skewMillis;
    private final Map<ByteBuffer, String> checked = new ConcurrentHashMap<>();
    private final Map<ByteBuffer, Signer> signers = new ConcurrentHashMap<>();

    /**
     * What the check of a certificate chain found: its leaf's key and the leaf (for its names and
     * validity), or why it is refused; checked again after {@link #RECHECK_NANOS}.
     */
    private record Signer(@Nullable X509Certificate leaf, String refused, long checkedNanos) {
    }

    /** How long the check of a certificate chain is kept (its validity dates are checked every time). */
    private static final long RECHECK_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The credentials of a node with {@code tls}, tolerating {@code clockSkew} between nodes' clocks. */
    public ChainCredentials(NodeTls tls, Duration clockSkew) {
        this.key = tls.privateKey();
        List<byte[]> encoded = new ArrayList<>();
        try {
            for (X509Certificate c : tls.certificateChain()) {
                encoded.add(c.getEncoded());
            }
            this.trust = new PeerTrustManager(tls.trustedCertificates());
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("cannot encode the node's certificate: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the node's trusted certificates: " + e.getMessage(), e);
        }
        this.certificates = List.copyOf(encoded);
        this.skewMillis = clockSkew.toMillis();
    }

    /** How much later than signed a header's deadline may be. */
    public Duration clockSkew() {
        return Duration.ofMillis(skewMillis);
    }

    /**
     * This node's credential, as {@code signer}, for the chain of {@code chain} (its id and secret, its
     * budget from now, its hop limit), whose first hop is {@code first}.
     */
    public ChainCredential sign(ChainHeader chain, NodeAddress signer, ChainCredential.FirstHop first) {
        long deadline = deadlineMillis(chain.budgetNanos(), System.currentTimeMillis());
        byte[] claims = ChainCredential.signedBytes(chain.chainId(), chain.secret(), signer, deadline, chain.maxHops(),
                first);
        try {
            Signature s = Signature.getInstance(algorithm(key.getAlgorithm()));
            s.initSign(key);
            s.update(claims);
            return new ChainCredential(deadline, chain.maxHops(), first, s.sign(), certificates);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign the chain with the node's " + key.getAlgorithm()
                    + " key: " + e.getMessage(), e);
        }
    }

    /** The wall-clock deadline (epoch ms) of a budget of {@code budgetNanos} from {@code nowMillis}. */
    static long deadlineMillis(long budgetNanos, long nowMillis) {
        if (budgetNanos == ChainHeader.NO_DEADLINE) {
            return ChainCredential.NO_DEADLINE;
        }
        return Math.max(1, nowMillis + Math.max(0, TimeUnit.NANOSECONDS.toMillis(budgetNanos)) + 1);
    }

    /**
     * Why {@code credential} does not prove that {@code signer} started (or, for a sub-chain, created)
     * the chain of {@code header} as it arrived at node {@code here}, or {@code null} if it does. The
     * deadline is not checked here: {@link #budgetNanos} cuts the header's budget back to the signed
     * deadline instead.
     *
     * @param firstHop whether {@code header} is the first hop the credential's signer sent
     */
    public @Nullable String check(ChainHeader header, ChainCredential credential, NodeAddress signer,
                                  String here, boolean firstHop) {
        String signed = checkSignature(header.chainId(), header.secret(), signer, credential);
        if (!signed.isEmpty()) {
            return signed;
        }
        if (header.maxHops() > credential.maxHops()) {
            return "the hop limit was widened on the way (" + header.maxHops() + " hops, '" + signer.node()
                    + "' signed " + credential.maxHops() + ")";
        }
        ChainCredential.FirstHop first = credential.first();
        if (firstHop && (!first.serviceFunction().equals(header.serviceFunction()) || !first.server().equals(here))) {
            return "the credential was signed for a first hop to '" + first.serviceFunction() + "' at '" + first.server()
                    + "', not to '" + header.serviceFunction() + "' at '" + here + "'";
        }
        return null;
    }

    /**
     * The budget the hop of {@code header}, whose request arrived at {@code arrivedNanos}
     * ({@link System#nanoTime()}), runs under, counted from its arrival: the smaller of what the
     * header claims and what {@code credential}'s signed deadline, plus {@link #clockSkew() clock
     * skew}, left at the arrival (a claim of no deadline included), or the claim if nothing was
     * signed. Zero or less if the signed deadline had passed: the hop then fails as any hop that
     * arrives after its chain's deadline.
     */
    public long budgetNanos(ChainHeader header, ChainCredential credential, long arrivedNanos) {
        if (credential.deadlineMillis() == ChainCredential.NO_DEADLINE) {
            return header.budgetNanos();
        }
        return budgetWithin(header.budgetNanos(), credential.deadlineMillis(), skewMillis, System.currentTimeMillis(),
                System.nanoTime() - arrivedNanos);
    }

    /**
     * The smaller of {@code claimedNanos} (or {@link ChainHeader#NO_DEADLINE}) and what signed deadline
     * {@code deadlineMillis} (epoch ms), {@code skewMillis} later, left at a request's arrival,
     * {@code sinceArrivalNanos} before {@code nowMillis}.
     */
    static long budgetWithin(long claimedNanos, long deadlineMillis, long skewMillis, long nowMillis,
                             long sinceArrivalNanos) {
        long latest = Math.clamp(deadlineMillis, nowMillis - MAX_LEFT_MILLIS, nowMillis + MAX_LEFT_MILLIS);
        long signedNanos = TimeUnit.MILLISECONDS.toNanos(latest - nowMillis + skewMillis)
                + Math.clamp(sinceArrivalNanos, 0, TimeUnit.MILLISECONDS.toNanos(MAX_LEFT_MILLIS));
        return claimedNanos == ChainHeader.NO_DEADLINE ? signedNanos : Math.min(claimedNanos, signedNanos);
    }

    /** The signature and certificate part of the check, remembered per credential and chain. */
    private String checkSignature(long chainId, ChainSecret secret, NodeAddress signer, ChainCredential credential) {
        byte[] claims = credential.signedBytes(chainId, secret, signer);
        ByteBuffer cacheKey = cacheKey(claims, credential);
        String known = checked.get(cacheKey);
        if (known != null) {
            return known;
        }
        String found = verify(claims, signer, credential);
        if (checked.size() >= CACHE_ENTRIES) {
            checked.clear();
        }
        checked.put(cacheKey, found);
        return found;
    }

    private static ByteBuffer cacheKey(byte[] claims, ChainCredential credential) {
        int size = claims.length + credential.signature().length + 4 * (credential.certificates().size() + 1);
        for (byte[] c : credential.certificates()) {
            size += c.length;
        }
        ByteBuffer key = ByteBuffer.allocate(size);
        key.put(claims).putInt(credential.signature().length).put(credential.signature());
        for (byte[] c : credential.certificates()) {
            key.putInt(c.length).put(c);
        }
        return key.flip();
    }

    private String verify(byte[] claims, NodeAddress signer, ChainCredential credential) {
        Signer checkedSigner = signerOf(credential.certificates());
        if (!checkedSigner.refused().isEmpty()) {
            return checkedSigner.refused();
        }
        X509Certificate leaf = checkedSigner.leaf();
        try {
            leaf.checkValidity();
        } catch (CertificateException e) {
            return "its certificate is not valid now: " + e.getMessage();
        }
        if (!NodeIdentity.carries(leaf, signer.node())) {
            return "its " + NodeIdentity.describe(leaf) + " does not name '" + signer.node() + "'";
        }
        PublicKey publicKey = leaf.getPublicKey();
        try {
            Signature s = Signature.getInstance(algorithm(publicKey.getAlgorithm()));
            s.initVerify(publicKey);
            s.update(claims);
            return s.verify(credential.signature()) ? OK
                    : "its signature does not match the chain (forged, or made for another chain or originator)";
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return "its signature cannot be checked (" + e.getMessage() + ")";
        }
    }

    /**
     * The check of certificate chain {@code certificates} against the trusted CAs, kept per chain of
     * certificates (a node signs all its chains with one) for {@link #RECHECK_NANOS}.
     */
    private Signer signerOf(List<byte[]> certificates) {
        int size = 0;
        for (byte[] c : certificates) {
            size += c.length + 4;
        }
        ByteBuffer key = ByteBuffer.allocate(size);
        for (byte[] c : certificates) {
            key.putInt(c.length).put(c);
        }
        key.flip();
        long now = System.nanoTime();
        Signer known = signers.get(key);
        if (known != null && now - known.checkedNanos() < RECHECK_NANOS) {
            return known;
        }
        Signer found = checkCertificates(certificates, now);
        if (signers.size() >= CACHE_ENTRIES) {
            signers.clear();
        }
        signers.put(key, found);
        return found;
    }

    private Signer checkCertificates(List<byte[]> certificates, long now) {
        X509Certificate[] chain;
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            chain = new X509Certificate[certificates.size()];
            for (int i = 0; i < chain.length; i++) {
                chain[i] = (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(certificates.get(i)));
            }
        } catch (CertificateException | ClassCastException e) {
            return new Signer(null, "its certificate cannot be read (" + e.getMessage() + ")", now);
        }
        try {
            trust.checkClientTrusted(chain, chain[0].getPublicKey().getAlgorithm());
        } catch (CertificateException e) {
            return new Signer(null, "its certificate is not trusted here: " + e.getMessage(), now);
        }
        return new Signer(chain[0], OK, now);
    }

    /** The signature algorithm for a key of {@code keyAlgorithm}. */
    static String algorithm(String keyAlgorithm) {
        return switch (keyAlgorithm) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            default -> throw new IllegalArgumentException("rpcc signs chains with EC, RSA or EdDSA keys, not "
                    + keyAlgorithm);
        };
    }
}
