package io.rpcc.core.internal.transport;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Checks a peer's certificate chain with the JDK's PKIX validation against a node's trusted CAs,
 * and says in plain words why it is refused: expired, not yet valid, or not signed by a trusted CA.
 * Its messages travel in the handshake failure, whichever TLS provider runs the handshake.
 */
final class PeerTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager pkix;

    PeerTrustManager(List<X509Certificate> trusted) throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        for (int i = 0; i < trusted.size(); i++) {
            store.setCertificateEntry("ca-" + i, trusted.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(store);
        X509ExtendedTrustManager found = null;
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509ExtendedTrustManager x) {
                found = x;
            }
        }
        if (found == null) {
            throw new GeneralSecurityException("the JDK has no PKIX X509ExtendedTrustManager");
        }
        this.pkix = found;
    }

    private static CertificateException explain(X509Certificate[] chain, CertificateException e) {
        if (chain == null || chain.length == 0) {
            return new CertificateException("the peer sent no certificate", e);
        }
        X509Certificate leaf = chain[0];
        String who = NodeIdentity.describe(leaf);
        for (X509Certificate c : chain) {
            try {
                c.checkValidity();
            } catch (CertificateExpiredException expired) {
                return new CertificateException("the peer's " + who + " has expired (valid until " + c.getNotAfter()
                        + (c == leaf ? "" : ", certificate '" + c.getSubjectX500Principal().getName() + "' of its chain")
                        + "): renew it", e);
            } catch (CertificateNotYetValidException early) {
                return new CertificateException("the peer's " + who + " is not valid yet (valid from "
                        + c.getNotBefore() + "): check the clocks or the certificate", e);
            }
        }
        return new CertificateException("the peer's " + who + ", issued by '"
                + chain[chain.length - 1].getIssuerX500Principal().getName()
                + "', is not signed by a CA this node trusts: sign it with a CA in this node's trusted certificates,"
                + " or add its CA there (" + e.getMessage() + ")", e);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        try {
            pkix.checkClientTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw explain(chain, e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        try {
            pkix.checkServerTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw explain(chain, e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        try {
            pkix.checkClientTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw explain(chain, e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        try {
            pkix.checkServerTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw explain(chain, e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            pkix.checkClientTrusted(chain, authType);
        } catch (CertificateException e) {
            throw explain(chain, e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            pkix.checkServerTrusted(chain, authType);
        } catch (CertificateException e) {
            throw explain(chain, e);
        }
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
