package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A node's signature over a chain it started (the originator's credential, in the header's chain
 * identity) or over a sub-chain it started (the creator's, in the sub-chain's return point): what no
 * node on the way can forge or widen. The signed claims are the chain's id and secret (so it cannot be
 * replayed on another chain), the signer's address (so a node cannot pass the chain off as
 * another's, nor send its results elsewhere), the deadline on the signer's wall clock, the hop limit
 * and the first hop; the signer's certificate chain comes with it, so that any hop can check it
 * against its trusted CAs.
 *
 * @param deadlineMillis the chain's deadline as the signer set it (epoch milliseconds), or {@link #NO_DEADLINE}
 * @param maxHops the hop limit the signer set: a header may carry less, never more
 * @param first the first hop the signer sent the chain (or sub-chain) to
 * @param signature the signature over {@link #signedBytes}
 * @param certificates the signer's certificate chain, leaf first, DER-encoded
 */
@EngineSpi
public record ChainCredential(long deadlineMillis, int maxHops, FirstHop first, byte[] signature,
                              List<byte[]> certificates) {
    /** The deadline of a chain that has none. */
    public static final long NO_DEADLINE = 0;
    /** The most certificates a credential may carry. */
    public static final int MAX_CERTIFICATES = 8;
    /** The most bytes of a certificate, or of the signature, a credential may carry. */
    public static final int MAX_ITEM_BYTES = 16 * 1024;
    private static final byte[] CONTEXT = "rpcc chain credential 1".getBytes(StandardCharsets.US_ASCII);

    public ChainCredential {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(signature, "signature");
        certificates = List.copyOf(certificates);
    }

    /**
     * Where the signer sent the chain first: its hop number, server and service function.
     *
     * @param hop the first hop's number
     * @param server the server it was sent to (as the signer named it)
     * @param serviceFunction the service function it called
     */
    public record FirstHop(int hop, String server, String serviceFunction) {
        public FirstHop {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serviceFunction, "serviceFunction");
        }
    }

    /** The bytes the signer signs, and a verifier checks, for chain {@code chainId} with {@code secret} signed by {@code signer}. */
    public byte[] signedBytes(long chainId, ChainSecret secret, NodeAddress signer) {
        return signedBytes(chainId, secret, signer, deadlineMillis, maxHops, first);
    }

    /** {@link #signedBytes(long, ChainSecret, NodeAddress)} of claims not yet signed. */
    public static byte[] signedBytes(long chainId, ChainSecret secret, NodeAddress signer, long deadlineMillis,
                                     int maxHops, FirstHop first) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(CONTEXT);
            out.writeLong(chainId);
            out.writeLong(secret.high());
            out.writeLong(secret.low());
            out.writeUTF(signer.node());
            out.writeUTF(signer.host());
            out.writeInt(signer.port());
            out.writeLong(deadlineMillis);
            out.writeInt(maxHops);
            out.writeInt(first.hop());
            out.writeUTF(first.server());
            out.writeUTF(first.serviceFunction());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** How many bytes the credential adds to a REQUEST frame, about (for logs and benchmarks). */
    public int approximateSize() {
        int size = 16 + first.server().length() + first.serviceFunction().length() + signature.length;
        for (byte[] c : certificates) {
            size += c.length + 2;
        }
        return size;
    }
}
