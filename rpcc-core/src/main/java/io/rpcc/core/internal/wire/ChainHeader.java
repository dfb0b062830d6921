package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The routing and debugging part of a hop request; holds only rpcc's own types.
 *
 * @param chainId the chain's number at its originator
 * @param secret the chain's secret, echoed in every frame to the originator
 * @param origin the originator's node name: who started the chain (its identity, e.g. in chain ids)
 * @param originHost the originator's advertised host
 * @param originPort the originator's advertised port
 * @param hop this hop's index, starting at 1
 * @param maxHops the hop limit
 * @param path the servers visited before this hop
 * @param console the virtual console so far
 * @param timings the hop timings so far
 * @param serviceFunction the service function to run
 * @param chainingFunction the chaining function to run after it, or {@link ChainingFunctionSource#NONE}
 * @param credit the share of the chain's termination credit that this hop receives
 * @param replyTo where the hop's partial replies and returned credit go: the originator, or, inside a
 *     sub-chain whose replies go to its creator, that creator (the innermost sub-chain's return point's node);
 *     the chain id and {@link #replySecret()} are registered there
 * @param metadata the chain's metadata
 * @param returnStack where the chain returns to when it ends, innermost last (empty: nowhere, it
 *     ends at {@code replyTo})
 * @param branch the branch of the chain this hop is on
 * @param budgetNanos what is left of the chain's deadline when the request leaves its sender, in
 *     nanoseconds (zero or less: expired), or {@link #NO_DEADLINE}; a budget, not a time, so that the
 *     nodes' clocks need not agree
 * @param heartbeat the chain's time-to-heartbeat when the request leaves its sender (paper 3.9), or
 *     {@link HeartbeatBudget#NONE}
 * @param attempt which sending of the chain by its originator this is: 1, or more for a chain sent
 *     again with the same id and secret (idempotent retry, paper 3.9); the frames back carry
 *     {@link #attemptSecret()}
 */
public record ChainHeader(long chainId, ChainSecret secret, String origin, String originHost, int originPort, int hop, int maxHops,
                          List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                          String serviceFunction, ChainingFunctionSource chainingFunction, Credit credit,
                          NodeAddress replyTo, Metadata metadata, List<ReturnPoint> returnStack, BranchId branch,
                          long budgetNanos, HeartbeatBudget heartbeat, int attempt) {
    /** The budget of a chain without a deadline. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;
    /** The most attempts a chain can be sent in (a larger attempt number makes a request malformed). */
    public static final int MAX_ATTEMPTS = 1000;

    /** The secret of the frames back of this attempt ({@link ChainSecret#forAttempt}). */
    public ChainSecret attemptSecret() {
        return secret.forAttempt(attempt);
    }

    /** This header as attempt {@code nextAttempt} of its chain. */
    public ChainHeader withAttempt(int nextAttempt) {
        return new ChainHeader(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings,
                serviceFunction, chainingFunction, credit, replyTo, metadata, returnStack, branch, budgetNanos,
                heartbeat, nextAttempt);
    }

    /** A header of a chain's first attempt that sends no heartbeats. */
    public ChainHeader(long chainId, ChainSecret secret, String origin, String originHost, int originPort, int hop,
                       int maxHops, List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                       String serviceFunction, ChainingFunctionSource chainingFunction, Credit credit,
                       NodeAddress replyTo, Metadata metadata, List<ReturnPoint> returnStack, BranchId branch,
                       long budgetNanos) {
        this(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings, serviceFunction,
                chainingFunction, credit, replyTo, metadata, returnStack, branch, budgetNanos, HeartbeatBudget.NONE, 1);
    }

    /** The originator's address. */
    public NodeAddress originator() {
        return new NodeAddress(origin, originHost, originPort);
    }

    /**
     * The header of the chain's next request from this hop: same chain, originator, reply-to, return
     * stack and branch, with the given hop, path so far, function, credit, metadata and budget.
     */
    public ChainHeader onward(int nextHop, List<String> pathSoFar, List<ConsoleLine> consoleSoFar,
                              List<HopTiming> timingsSoFar, String nextService, ChainingFunctionSource nextChaining,
                              Credit nextCredit, Metadata nextMetadata, long nextBudgetNanos) {
        return new ChainHeader(chainId, secret, origin, originHost, originPort, nextHop, maxHops, pathSoFar, consoleSoFar,
                timingsSoFar, nextService, nextChaining, nextCredit, replyTo, nextMetadata, returnStack, branch,
                nextBudgetNanos, heartbeat, attempt);
    }

    /**
     * This header with {@code nextChaining} as its chaining function and {@code nextStack} as its
     * return stack (a sub-chain's start pushes a return point; the creator it returns to pops it),
     * and the reply-to that stack implies: the node of the innermost sub-chain's return point (merge
     * points aside: a branch replies where the hop that split did) if its sub-chain's replies go to
     * its creator, else the originator.
     */
    public ChainHeader with(ChainingFunctionSource nextChaining, List<ReturnPoint> nextStack) {
        ReturnPoint sub = innermostSubChain(nextStack);
        NodeAddress nextReplyTo = sub != null && sub.repliesToCreator() ? sub.node() : originator();
        return new ChainHeader(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings,
                serviceFunction, nextChaining, credit, nextReplyTo, metadata, List.copyOf(nextStack), branch, budgetNanos,
                heartbeat, attempt);
    }

    /**
     * The secret the frames to {@link #replyTo()} carry: the attempt's ({@link #attemptSecret()}), or, when they go to the
     * creator of the sub-chain this hop is in, that sub-chain's ({@link ReturnPoint#replySecret}).
     */
    public ChainSecret replySecret() {
        ReturnPoint sub = innermostSubChain(returnStack);
        ChainSecret own = attemptSecret();
        return sub == null || !sub.repliesToCreator() ? own : sub.replySecret(own);
    }

    /** The innermost return point of {@code stack} that is not a merge point, or {@code null}. */
    private static @Nullable ReturnPoint innermostSubChain(List<ReturnPoint> stack) {
        for (int i = stack.size() - 1; i >= 0; i--) {
            if (!stack.get(i).isMerge()) {
                return stack.get(i);
            }
        }
        return null;
    }

    /** This header on branch {@code nextBranch} (a split's branch, or the parent branch a merge goes on with). */
    public ChainHeader withBranch(BranchId nextBranch) {
        return new ChainHeader(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings,
                serviceFunction, chainingFunction, credit, replyTo, metadata, returnStack, nextBranch, budgetNanos,
                heartbeat, attempt);
    }

    /** This header with {@code next} as its deadline budget (as the request leaves this node). */
    public ChainHeader withBudget(long next) {
        return new ChainHeader(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings,
                serviceFunction, chainingFunction, credit, replyTo, metadata, returnStack, branch, next, heartbeat,
                attempt);
    }

    /** This header with {@code next} as its time-to-heartbeat (as the request leaves this node). */
    public ChainHeader withHeartbeat(HeartbeatBudget next) {
        return new ChainHeader(chainId, secret, origin, originHost, originPort, hop, maxHops, path, console, timings,
                serviceFunction, chainingFunction, credit, replyTo, metadata, returnStack, branch, budgetNanos, next,
                attempt);
    }
}
