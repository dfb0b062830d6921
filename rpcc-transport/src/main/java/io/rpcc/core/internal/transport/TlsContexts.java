package io.rpcc.core.internal.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.rpcc.core.NodeTls;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's TLS: the server and client contexts made from its {@link NodeTls} (mutual TLS: each
 * side presents its certificate and requires the other's), the {@link SslHandler} that goes first
 * in every connection's pipeline, and the peer's certificate once the handshake is done.
 */
public final class TlsContexts {
    private static final Logger log = LoggerFactory.getLogger(TlsContexts.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private static final AtomicBoolean providerLogged = new AtomicBoolean();

    private final SslContext server;
    private final SslContext client;

    private TlsContexts(SslContext server, SslContext client) {
        this.server = server;
        this.client = client;
    }

    /** The TLS implementation of this JVM: OpenSSL where netty-tcnative loads, else the JDK's. */
    public static NodeTls.Provider provider() {
        return NodeTls.provider();
    }

    /**
     * The contexts of node {@code nodeName}.
     *
     * @throws IllegalStateException if the node's certificate does not carry its name, or the key and
     *     certificates cannot be used
     */
    public static TlsContexts forNode(String nodeName, NodeTls tls) {
        X509Certificate own = tls.certificateChain().getFirst();
        if (!NodeIdentity.carries(own, nodeName)) {
            throw new IllegalStateException("node '" + nodeName + "' cannot start with TLS: its "
                    + NodeIdentity.describe(own) + " does not carry its name; give the node a certificate with "
                    + NodeIdentity.howToName(nodeName) + ", or start it under one of the names the certificate carries");
        }
        try {
            own.checkValidity();
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            log.warn("node '{}': its {} is not valid now (valid {} to {}); peers will refuse it", nodeName,
                    NodeIdentity.describe(own), own.getNotBefore(), own.getNotAfter());
        }
        SslProvider provider = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        if (providerLogged.compareAndSet(false, true)) {
            if (provider == SslProvider.OPENSSL) {
                log.info("rpcc TLS between nodes runs on OpenSSL ({})", OpenSsl.versionString());
            } else {
                log.info("rpcc TLS between nodes runs on the JDK's implementation (OpenSSL unavailable: {})",
                        OpenSsl.unavailabilityCause() == null ? "not on the class path" : OpenSsl.unavailabilityCause().toString());
            }
        }
        X509Certificate[] chain = tls.certificateChain().toArray(X509Certificate[]::new);
        try {
            PeerTrustManager trust = new PeerTrustManager(tls.trustedCertificates());
            SslContext server = SslContextBuilder.forServer(tls.privateKey(), chain)
                    .sslProvider(provider).protocols(PROTOCOLS).trustManager(trust).clientAuth(ClientAuth.REQUIRE)
                    .build();
            SslContext client = SslContextBuilder.forClient()
                    .sslProvider(provider).protocols(PROTOCOLS).keyManager(tls.privateKey(), chain).trustManager(trust)
                    .endpointIdentificationAlgorithm(null) // names are checked against rpcc's rule, not host names
                    .build();
            return new TlsContexts(server, client);
        } catch (SSLException | GeneralSecurityException e) {
            throw new IllegalStateException("node '" + nodeName + "' cannot set up TLS with " + tls + ": " + e.getMessage(), e);
        }
    }

    /** The handler for a connection a peer opened to this node. */
    public SslHandler inbound(ByteBufAllocator alloc, Duration handshakeTimeout) {
        SslHandler h = server.newHandler(alloc);
        h.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        return h;
    }

    /** The handler for a connection this node opens to {@code peer}. */
    public SslHandler outbound(ByteBufAllocator alloc, InetSocketAddress peer, Duration handshakeTimeout) {
        SslHandler h = client.newHandler(alloc, peer.getHostString(), peer.getPort());
        h.setHandshakeTimeoutMillis(handshakeTimeout.toMillis());
        return h;
    }

    /**
     * The certificate that the peer of {@code ch} presented in a completed TLS handshake, or
     * {@code null} if {@code ch} does not run TLS or the handshake is not done.
     */
    public static X509Certificate peerCertificate(Channel ch) {
        SslHandler ssl = ch.pipeline().get(SslHandler.class);
        if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
            return null;
        }
        try {
            Certificate[] certs = ssl.engine().getSession().getPeerCertificates();
            return certs.length > 0 && certs[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    /** Why a TLS handshake or connection failed, in words, from its exception. */
    public static String explain(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CertificateException && t.getMessage() != null
                    && t.getMessage().startsWith("the peer")) {
                return t.getMessage();
            }
        }
        String m = failure.getMessage();
        if (failure instanceof NotSslRecordException) {
            return "the peer does not speak TLS: turn on TLS (builder.tls(...)) on every node";
        }
        if (m != null && m.toLowerCase(Locale.ROOT).contains("alert")) {
            return "the peer refused this node's certificate (" + m + "): make sure the peer trusts the CA that "
                    + "signed it and that it is valid now";
        }
        return m == null ? failure.getClass().getSimpleName() : m;
    }
}
