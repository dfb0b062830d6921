package io.rpcc.core.testing;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.rpcc.core.NodeTls;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A certificate authority made on the fly for tests, and node certificates it issues (EC P-256,
 * with the node's name as URI subject alternative name {@code rpcc:<name>}), as {@link NodeTls}
 * that trust this CA only. {@link #shared()} is one CA for a whole test JVM; {@link #create} makes
 * another, e.g. to test a certificate that a node does not trust.
 */
public final class TestPki {
    private static final TestPki SHARED = create("rpcc test CA");

    private final X509Bundle ca;
    private final Map<String, NodeTls> issued = new ConcurrentHashMap<>();

    private TestPki(X509Bundle ca) {
        this.ca = ca;
    }

    /** The CA shared by the tests of this JVM. */
    public static TestPki shared() {
        return SHARED;
    }

    /** A new CA named {@code name}. */
    public static TestPki create(String name) {
        try {
            Instant now = Instant.now();
            return new TestPki(new CertificateBuilder().subject("CN=" + name).ecp256().setIsCertificateAuthority(true)
                    .notBefore(now.minus(Duration.ofDays(1))).notAfter(now.plus(Duration.ofDays(30)))
                    .buildSelfSigned());
        } catch (Exception e) {
            throw new IllegalStateException("cannot make a test CA", e);
        }
    }

    /** The CA's certificate and key. */
    public X509Bundle ca() {
        return ca;
    }

    /** A valid certificate for node {@code name} (made once per name and CA), trusting this CA. */
    public NodeTls node(String name) {
        return issued.computeIfAbsent(name, n -> issue(n, b -> b));
    }

    /**
     * A certificate for node {@code name} changed by {@code edit} (e.g. other names, a validity
     * window in the past), trusting this CA.
     */
    public NodeTls issue(String name, UnaryOperator<CertificateBuilder> edit) {
        X509Bundle cert = bundle(name, edit);
        return NodeTls.of(cert.getKeyPair().getPrivate(), cert.getCertificatePathList(), List.of(ca.getCertificate()));
    }

    /** Like {@link #issue}, as a certificate bundle (key, chain, PEM). */
    public X509Bundle bundle(String name, UnaryOperator<CertificateBuilder> edit) {
        try {
            Instant now = Instant.now();
            CertificateBuilder b = new CertificateBuilder().subject("CN=" + name).ecp256()
                    .notBefore(now.minus(Duration.ofHours(1))).notAfter(now.plus(Duration.ofDays(1)))
                    .addSanUriName("rpcc:" + name);
            return edit.apply(b).buildIssuedBy(ca);
        } catch (Exception e) {
            throw new IllegalStateException("cannot issue a test certificate for '" + name + "'", e);
        }
    }
}
