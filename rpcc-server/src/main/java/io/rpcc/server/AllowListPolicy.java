package io.rpcc.server;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.IsolationLevel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link ChainPolicy} from a table: each listed service function may be called only by chains
 * whose <em>verified</em> originator is one of its names; the others by everyone (or, with
 * {@code requireVerifiedOriginator}, by every verified originator). Isolation as
 * {@link ChainPolicy#ALLOW_ALL}: in process for verified originators, isolated for the others.
 * Between plaintext nodes nothing is verified, so a listed service function is refused to every chain.
 *
 * <pre>{@code
 * RpccServer.builder("billing")
 *     .policy(new AllowListPolicy(Map.of("charge", Set.of("shop", "billing-admin")), true));
 * }</pre>
 *
 * @param allowed for each listed service function, the originators (node names) that may call it
 * @param requireVerifiedOriginator whether chains whose originator is not verified are refused every
 *     service function
 */
public record AllowListPolicy(Map<String, Set<String>> allowed, boolean requireVerifiedOriginator)
        implements ChainPolicy {
    public AllowListPolicy {
        Map<String, Set<String>> copy = new LinkedHashMap<>();
        Objects.requireNonNull(allowed, "allowed").forEach((service, names) -> copy.put(service, Set.copyOf(names)));
        allowed = Map.copyOf(copy);
    }

    @Override
    public Decision decide(String serviceFunction, ChainCaller caller) {
        if (requireVerifiedOriginator && !caller.originatorVerified()) {
            return Decision.deny("this server takes chains only from verified originators, and '"
                    + caller.originator() + "' is not verified (start the chain from a node with a TLS certificate)");
        }
        Set<String> names = allowed.get(serviceFunction);
        if (names != null && !(caller.originatorVerified() && names.contains(caller.originator()))) {
            return Decision.deny("'" + serviceFunction + "' is allowed only to the verified originators "
                    + names.stream().sorted().toList());
        }
        return Decision.allow(caller.originatorVerified() ? IsolationLevel.IN_PROCESS : IsolationLevel.ISOLATED);
    }
}
