package io.rpcc.core.internal.transport;

import io.rpcc.core.NodeTls;
import java.security.cert.X509Certificate;
import java.util.Set;

/**
 * The rule that ties a node's name to its certificate: a certificate carries node name {@code n}
 * if its subject alternative names include the URI {@code rpcc:n} or the DNS name {@code n},
 * exactly (no wildcards, case sensitive; the subject's common name does not count).
 */
public final class NodeIdentity {
    /** The scheme of URI subject alternative names that name rpcc nodes. */
    public static final String URI_SCHEME = NodeTls.URI_SCHEME;

    private NodeIdentity() {
    }

    /** The node names {@code certificate} carries (the rule is {@link NodeTls#namesOf}'s). */
    public static Set<String> namesOf(X509Certificate certificate) {
        return NodeTls.namesOf(certificate);
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
