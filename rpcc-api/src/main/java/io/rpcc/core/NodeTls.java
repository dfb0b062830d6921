package io.rpcc.core;

import io.netty.handler.ssl.OpenSsl;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's identity and trust for mutual TLS between nodes: its private key, its certificate (with
 * the chain up to, not necessarily including, a root) and the CA certificates it trusts. Set it on
 * every node with {@code builder.tls(...)}; then every connection, inbound and outbound, runs TLS
 * (1.3 or 1.2), each side presents its certificate and requires the other's, signed by one of
 * the trusted CAs and valid now.
 *
 * <p><b>The name rule.</b> A certificate carries node name {@code n} if its subject alternative
 * names include the URI {@code rpcc:n} or the DNS name {@code n} (exactly: no wildcards, case
 * sensitive; the subject's common name is not looked at). A node refuses to start with a
 * certificate that does not carry its own name; it refuses a peer whose HELLO claims a name its
 * certificate does not carry, and a node at a resolved address whose certificate does not carry
 * the name that was resolved ({@link PeerAuthenticationException}, counted as
 * {@link Refusal#IMPERSONATION}).
 *
 * <pre>{@code
 * NodeTls tls = NodeTls.fromPem(Path.of("s1.crt"), Path.of("s1.key"), Path.of("ca.crt"));
 * RpccServer s1 = RpccServer.builder("s1").tls(tls)...build().start();
 * }</pre>
 *
 * <p>TLS runs on OpenSSL (BoringSSL, from {@code netty-tcnative-boringssl-static}) where its
 * native library loads, else on the JDK's implementation; {@link #provider()} says which.
 */
public final class NodeTls {
    /** The scheme of URI subject alternative names that name rpcc nodes. */
    public static final String URI_SCHEME = "rpcc:";
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;

    private static final Pattern PEM_KEY = Pattern.compile(
            "-----BEGIN ([A-Z ]*)PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END \\1PRIVATE KEY-----");

    /** The TLS implementation the nodes of this JVM use. */
    public enum Provider {
        /** BoringSSL through netty-tcnative. */
        OPENSSL,
        /** The JDK's own TLS (SunJSSE). */
        JDK
    }

    private final PrivateKey privateKey;
    private final List<X509Certificate> certificateChain;
    private final List<X509Certificate> trustedCertificates;

    private NodeTls(PrivateKey privateKey, List<X509Certificate> certificateChain,
                    List<X509Certificate> trustedCertificates) {
        if (certificateChain.isEmpty()) {
            throw new IllegalArgumentException("a node's TLS settings need its certificate; the chain is empty");
        }
        if (trustedCertificates.isEmpty()) {
            throw new IllegalArgumentException("a node's TLS settings need at least one trusted CA certificate");
        }
        this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
        this.certificateChain = List.copyOf(certificateChain);
        this.trustedCertificates = List.copyOf(trustedCertificates);
    }

    /**
     * TLS settings from a private key, the node's certificate chain (its own certificate first) and
     * the CA certificates it trusts.
     */
    public static NodeTls of(PrivateKey privateKey, List<X509Certificate> certificateChain,
                             Collection<X509Certificate> trustedCertificates) {
        return new NodeTls(privateKey, certificateChain, new ArrayList<>(trustedCertificates));
    }

    /**
     * TLS settings from PEM files: the node's certificate chain (its own certificate first, then any
     * intermediates), its unencrypted PKCS#8 private key ({@code -----BEGIN PRIVATE KEY-----}, as
     * {@code openssl genpkey} writes it; convert others with {@code openssl pkcs8 -topk8 -nocrypt}),
     * and the trusted CA certificates (one or more in one file).
     *
     * @throws IllegalArgumentException naming the file that cannot be read or parsed
     */
    public static NodeTls fromPem(Path certificateChain, Path privateKey, Path trustedCertificates) {
        List<X509Certificate> chain = readCertificates(certificateChain);
        return new NodeTls(readPrivateKey(privateKey, chain.getFirst()), chain, readCertificates(trustedCertificates));
    }

    /**
     * TLS settings from key stores: the one private-key entry of {@code keyStore} (with its
     * certificate chain) and every certificate of {@code trustStore} (trusted-certificate entries
     * and the certificates of key entries).
     *
     * @param keyPassword the password of the key entry
     * @throws IllegalArgumentException if {@code keyStore} has no or several key entries, or a
     *     store cannot be read
     */
    public static NodeTls fromKeyStore(KeyStore keyStore, char[] keyPassword, KeyStore trustStore) {
        try {
            String alias = null;
            for (String a : Collections.list(keyStore.aliases())) {
                if (keyStore.isKeyEntry(a)) {
                    if (alias != null) {
                        throw new IllegalArgumentException("the key store has several private keys ('" + alias
                                + "', '" + a + "'); give the node a key store with only its own");
                    }
                    alias = a;
                }
            }
            if (alias == null) {
                throw new IllegalArgumentException("the key store has no private key entry");
            }
            Key key = keyStore.getKey(alias, keyPassword);
            if (!(key instanceof PrivateKey pk)) {
                throw new IllegalArgumentException("key store entry '" + alias + "' is not a private key");
            }
            List<X509Certificate> chain = new ArrayList<>();
            for (Certificate c : keyStore.getCertificateChain(alias)) {
                chain.add((X509Certificate) c);
            }
            List<X509Certificate> trusted = new ArrayList<>();
            for (String a : Collections.list(trustStore.aliases())) {
                if (trustStore.getCertificate(a) instanceof X509Certificate c) {
                    trusted.add(c);
                }
            }
            return new NodeTls(pk, chain, trusted);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the node's key store: " + e.getMessage(), e);
        }
    }

    /** The node's private key. */
    public PrivateKey privateKey() {
        return privateKey;
    }

    /** The node's certificate, then any intermediates. */
    public List<X509Certificate> certificateChain() {
        return certificateChain;
    }

    /** The CA certificates whose signatures this node accepts on its peers' certificates. */
    public List<X509Certificate> trustedCertificates() {
        return trustedCertificates;
    }

    /** The node names the node's certificate carries, by the name rule above. */
    public Set<String> nodeNames() {
        return namesOf(certificateChain.getFirst());
    }

    /** The TLS implementation of this JVM: OpenSSL where netty-tcnative loads, else the JDK's. */
    public static Provider provider() {
        return OpenSsl.isAvailable() ? Provider.OPENSSL : Provider.JDK;
    }

    /**
     * The node names {@code certificate} carries, by the name rule above: its URI subject alternative
     * names {@code rpcc:<name>} and its DNS names without a wildcard.
     */
    public static Set<String> namesOf(X509Certificate certificate) {
        Set<String> names = new LinkedHashSet<>();
        Collection<List<?>> sans;
        try {
            sans = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return names;
        }
        if (sans == null) {
            return names;
        }
        for (List<?> san : sans) {
            if (san.size() < 2 || !(san.get(0) instanceof Integer type) || !(san.get(1) instanceof String value)) {
                continue;
            }
            if (type == SAN_DNS && !value.contains("*")) {
                names.add(value);
            } else if (type == SAN_URI && value.startsWith(URI_SCHEME) && value.length() > URI_SCHEME.length()) {
                names.add(value.substring(URI_SCHEME.length()));
            }
        }
        return names;
    }

    private static List<X509Certificate> readCertificates(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException("no certificate in " + file + " (expected PEM: -----BEGIN CERTIFICATE-----)");
            }
            return out;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read certificates from " + file + ": " + e.getMessage(), e);
        }
    }

    private static PrivateKey readPrivateKey(Path file, X509Certificate certificate) {
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read private key " + file + ": " + e.getMessage(), e);
        }
        Matcher m = PEM_KEY.matcher(pem);
        if (!m.find()) {
            throw new IllegalArgumentException("no PEM private key in " + file);
        }
        if (!m.group(1).isEmpty()) {
            throw new IllegalArgumentException("the private key in " + file + " is '" + m.group(1).trim()
                    + "'; rpcc reads unencrypted PKCS#8 keys: convert it with "
                    + "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out node.key");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(m.group(2));
            String algorithm = certificate.getPublicKey().getAlgorithm();
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot parse the private key in " + file + " (for a "
                    + certificate.getPublicKey().getAlgorithm() + " certificate): " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "NodeTls[" + certificateChain.getFirst().getSubjectX500Principal() + ", names " + nodeNames()
                + ", " + trustedCertificates.size() + " trusted CA(s)]";
    }
}
