package io.rpcc.server.internal;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.server.ChainPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a server's {@link ChainPolicy} about each service hop that arrives ({@link HopExecutor}):
 * the isolation level it runs at, or the {@link ChainErrorCode#PERMISSION_DENIED} failure that
 * refuses it (counted as {@link Refusal#POLICY_DENIED}). A policy that throws denies.
 */
final class HopPolicy {
    private static final Logger log = LoggerFactory.getLogger(HopPolicy.class);
    private final String nodeName;
    private final ChainPolicy policy;
    private final Refusals refusals;

    HopPolicy(String nodeName, ChainPolicy policy, Refusals refusals) {
        this.nodeName = nodeName;
        this.policy = policy;
        this.refusals = refusals;
    }

    /**
     * The isolation level the hop of {@code h}, asked for by {@code caller}, runs at.
     *
     * @throws HopFailure if the policy denies it
     */
    IsolationLevel admit(ChainHeader h, ChainCaller caller) {
        ChainPolicy.Decision decision;
        try {
            decision = policy.decide(h.serviceFunction(), caller);
        } catch (RuntimeException e) {
            log.warn("node '{}': the chain policy threw for '{}' ({}); the hop is refused", nodeName,
                    h.serviceFunction(), caller.describe(), e);
            decision = ChainPolicy.Decision.deny("the server's chain policy failed (" + e.getClass().getSimpleName()
                    + ")");
        }
        if (decision == null) {
            decision = ChainPolicy.Decision.deny("the server's chain policy gave no decision");
        }
        if (decision.allowed()) {
            return decision.isolation();
        }
        refusals.count(Refusal.POLICY_DENIED);
        throw new HopFailure(ChainErrorCode.PERMISSION_DENIED, "node '" + nodeName + "' refused hop " + h.hop()
                + ": its chain policy does not let " + caller.describe() + " call service function '"
                + h.serviceFunction() + "': " + decision.reason() + ". Call it from an originator the policy allows,"
                + " or change the policy of '" + nodeName + "'");
    }

    /**
     * The isolation level of a hop the policy does not admit or refuse (one of the engine's own:
     * a return, a merge, a proxied hop), which still runs its chain's chaining functions: what the
     * policy chooses for {@code caller} and the hop's name, and {@link IsolationLevel#ISOLATED} if it
     * would deny it or fails (such a hop is never refused here).
     */
    IsolationLevel isolationOf(ChainHeader h, ChainCaller caller) {
        try {
            ChainPolicy.Decision decision = policy.decide(h.serviceFunction(), caller);
            return decision != null && decision.allowed() ? decision.isolation() : IsolationLevel.ISOLATED;
        } catch (RuntimeException e) {
            return IsolationLevel.ISOLATED;
        }
    }
}
