package io.rpcc.server;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.IsolationLevel;
import java.util.Objects;

/**
 * A server's plug-in point that decides, before a hop runs, whether the chain's callers may call the
 * hop's service function, and how isolated it runs ({@code RpccServer.Builder.policy}).
 *
 * <p>It is asked once per service hop that arrives (not for the engine's own returns, merges and
 * proxied hops), on the thread that took the request up, so it must be quick and must not block.
 * {@link ChainCaller#originatorVerified()} says whether the originator's name was proven (a signature
 * over the chain between TLS nodes) or only claimed (plaintext). A {@link Decision#deny deny} ends the
 * hop with a {@link io.rpcc.core.PermissionDeniedException} at the originator naming this hop, this
 * server, the service function and the reason; the server goes on serving other chains. What the
 * policy throws counts as a deny.
 *
 * <pre>{@code
 * RpccServer.builder("billing")
 *     .policy((service, caller) -> service.equals("charge") && !caller.originator().equals("shop")
 *             ? ChainPolicy.Decision.deny("only 'shop' may charge")
 *             : ChainPolicy.Decision.allow(IsolationLevel.IN_PROCESS));
 * }</pre>
 */
@FunctionalInterface
public interface ChainPolicy {
    /**
     * The default: every service function to everyone, {@link IsolationLevel#IN_PROCESS} for chains
     * whose originator is verified, {@link IsolationLevel#ISOLATED} for the others.
     */
    ChainPolicy ALLOW_ALL = (serviceFunction, caller) -> Decision.allow(caller.originatorVerified()
            ? IsolationLevel.IN_PROCESS : IsolationLevel.ISOLATED);

    /** Whether {@code caller} may run {@code serviceFunction} here, and how isolated. */
    Decision decide(String serviceFunction, ChainCaller caller);

    /**
     * A policy's answer.
     *
     * @param allowed whether the hop runs
     * @param isolation how isolated it runs, if allowed
     * @param reason why it was denied (sent to the originator: no secrets), empty if allowed
     */
    record Decision(boolean allowed, IsolationLevel isolation, String reason) {
        public Decision {
            Objects.requireNonNull(isolation, "isolation");
            Objects.requireNonNull(reason, "reason");
        }

        /** The hop runs, at {@code isolation}. */
        public static Decision allow(IsolationLevel isolation) {
            return new Decision(true, isolation, "");
        }

        /** The hop does not run; {@code reason} says why (to the originator). */
        public static Decision deny(String reason) {
            return new Decision(false, IsolationLevel.ISOLATED, Objects.requireNonNull(reason, "reason"));
        }
    }
}
