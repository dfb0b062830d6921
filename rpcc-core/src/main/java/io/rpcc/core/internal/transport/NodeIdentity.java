package io.rpcc.core.internal.transport;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The rule that ties a node's name to its certificate: a certificate carries node name {@code n}
 * if its subject alternative names include the URI {@code rpcc:n} or the DNS name {@code n},
 * exactly (no wildcards, case sensitive; the subject's common name does not count).
 */
public final class NodeIdentity {
    /** The scheme of URI subject alternative names that name rpcc nodes. */
    public static final String URI_SCHEME = "rpcc:";
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;

    private NodeIdentity() {
    }

    /** The node names {@code certificate} carries. */
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

    /** Whether {@code certificate} carries node name {@code name}. */
    public static boolean carries(X509Certificate certificate, String name) {
        return namesOf(certificate).contains(name);
    }

    /** What to put in the certificate of node {@code name}, for error messages. */
    public static String howToName(String name) {
        return "a subject alternative name URI:" + URI_SCHEME + name + " or DNS:" + name;
    }

    /** The certificate's subject and the node names it carries, for error messages. */
    public static String describe(X509Certificate certificate) {
        Set<String> names = namesOf(certificate);
        return "certificate '" + certificate.getSubjectX500Principal().getName() + "' (node names: "
                + (names.isEmpty() ? "none" : String.join(", ", names)) + ")";
    }
}
