package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The routing and debugging part of a hop request; holds only rpcc's own types. Its parts are
 * grouped by what they say; the accessors of the single facts ({@link #hop()}, {@link #path()},
 * {@link #replyTo()}, ...) read them from their part. The wire encoding ({@code WireFormat}) writes
 * the facts one by one, in their fixed order, whatever the grouping.
 *
 * @param chain which chain, and which sending of it, this hop belongs to: its id and secret, its
 *     originator, its attempt (the frames back carry {@link #attemptSecret()})
 * @param soFar this hop's number and what the chain carries to it: path, console, timings, metadata
 * @param serviceFunction the service function to run
 * @param chainingFunction the chaining function to run after it, or {@link ChainingFunctionSource#NONE}
 * @param credit the share of the chain's termination credit that this hop receives
 * @param route where the hop's partial replies, returned credit and the chain's end go, and its branch
 *     (the chain id and {@link #replySecret()} are registered at the reply-to node)
 * @param limits the hop limit, and what is left of the chain's deadline and time-to-heartbeat when
 *     the request leaves its sender
 */
@EngineSpi
public record ChainHeader(ChainIdentity chain, ChainSoFar soFar, String serviceFunction,
                          ChainingFunctionSource chainingFunction, Credit credit, ReturnRoute route, ChainLimits limits) {
    /** The budget of a chain without a deadline. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;
    /** The most attempts a chain can be sent in (a larger attempt number makes a request malformed). */
    public static final int MAX_ATTEMPTS = 1000;

    /** The chain's number at its originator. */
    public long chainId() {
        return chain.chainId();
    }

    /** The chain's secret. */
    public ChainSecret secret() {
        return chain.secret();
    }

    /** The originator's node name. */
    public String origin() {
        return chain.originator().node();
    }

    /** The originator's advertised host. */
    public String originHost() {
        return chain.originator().host();
    }

    /** The originator's advertised port. */
    public int originPort() {
        return chain.originator().port();
    }

    /** The originator's address. */
    public NodeAddress originator() {
        return chain.originator();
    }

    /** The originator's signature over the chain, or {@code null} (see {@link ChainIdentity#credential()}). */
    public @Nullable ChainCredential credential() {
        return chain.credential();
    }

    /** Which sending of the chain by its originator this is. */
    public int attempt() {
        return chain.attempt();
    }

    /** The stamp of the chain's transaction, or {@code null} if the chain is not atomic. */
    public @Nullable TxStamp tx() {
        return chain.tx();
    }

    /** Whether the chain is atomic (one transaction across all its hops). */
    public boolean atomic() {
        return chain.tx() != null;
    }

    /** The transaction of this hop ({@link TxKey#of}), or {@code null} if the chain is not atomic. */
    public @Nullable TxKey txKey() {
        return chain.tx() == null ? null : TxKey.of(this);
    }

    /** This header with {@code stamp} as its transaction's stamp (a promoted or restarted chain), or not atomic. */
    public ChainHeader withTx(@Nullable TxStamp stamp) {
        return new ChainHeader(new ChainIdentity(chain.chainId(), chain.secret(), chain.originator(), chain.attempt(),
                chain.credential(), stamp), soFar, serviceFunction, chainingFunction, credit, route, limits);
    }

    /** This hop's index, starting at 1. */
    public int hop() {
        return soFar.hop();
    }

    /** The servers visited before this hop. */
    public List<String> path() {
        return soFar.path();
    }

    /** The virtual console so far. */
    public List<ConsoleLine> console() {
        return soFar.console();
    }

    /** The hop timings so far. */
    public List<HopTiming> timings() {
        return soFar.timings();
    }

    /** The chain's metadata. */
    public Metadata metadata() {
        return soFar.metadata();
    }

    /** Where the hop's partial replies and returned credit go. */
    public NodeAddress replyTo() {
        return route.replyTo();
    }

    /** Where the chain returns to when it ends, innermost last. */
    public List<ReturnPoint> returnStack() {
        return route.returnStack();
    }

    /** The branch of the chain this hop is on. */
    public BranchId branch() {
        return route.branch();
    }

    /** The hop limit. */
    public int maxHops() {
        return limits.maxHops();
    }

    /** What is left of the chain's deadline when the request leaves its sender, or {@link #NO_DEADLINE}. */
    public long budgetNanos() {
        return limits.budgetNanos();
    }

    /** The chain's time-to-heartbeat when the request leaves its sender, or {@link HeartbeatBudget#NONE}. */
    public HeartbeatBudget heartbeat() {
        return limits.heartbeat();
    }

    /** The secret of the frames back of this attempt ({@link ChainSecret#forAttempt}). */
    public ChainSecret attemptSecret() {
        return chain.secret().forAttempt(chain.attempt());
    }

    /** This header as attempt {@code nextAttempt} of its chain. */
    public ChainHeader withAttempt(int nextAttempt) {
        return new ChainHeader(new ChainIdentity(chain.chainId(), chain.secret(), chain.originator(), nextAttempt,
                chain.credential(), chain.tx()),
                soFar, serviceFunction, chainingFunction, credit, route, limits);
    }

    /**
     * The header of the chain's next request from this hop: same chain, originator, reply-to, return
     * stack, branch, hop limit and time-to-heartbeat, with {@code next} (its hop, path, console,
     * timings and metadata so far), its functions, credit and budget.
     */
    public ChainHeader onward(ChainSoFar next, String nextService, ChainingFunctionSource nextChaining,
                              Credit nextCredit, long nextBudgetNanos) {
        return new ChainHeader(chain, next, nextService, nextChaining, nextCredit, route,
                new ChainLimits(limits.maxHops(), nextBudgetNanos, limits.heartbeat()));
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
        return new ChainHeader(chain, soFar, serviceFunction, nextChaining, credit,
                new ReturnRoute(nextReplyTo, List.copyOf(nextStack), route.branch()), limits);
    }

    /**
     * The secret the frames to {@link #replyTo()} carry: the attempt's ({@link #attemptSecret()}), or, when they go to the
     * creator of the sub-chain this hop is in, that sub-chain's ({@link ReturnPoint#replySecret}).
     */
    public ChainSecret replySecret() {
        ReturnPoint sub = innermostSubChain(route.returnStack());
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
        return new ChainHeader(chain, soFar, serviceFunction, chainingFunction, credit,
                new ReturnRoute(route.replyTo(), route.returnStack(), nextBranch), limits);
    }

    /** This header carrying {@code signed}, its originator's credential. */
    public ChainHeader withCredential(ChainCredential signed) {
        return new ChainHeader(new ChainIdentity(chain.chainId(), chain.secret(), chain.originator(), chain.attempt(),
                signed, chain.tx()), soFar, serviceFunction, chainingFunction, credit, route, limits);
    }

    /** This header with {@code next} as the hop's share of the chain's credit (a vote took a slice of it). */
    public ChainHeader withCredit(Credit next) {
        return new ChainHeader(chain, soFar, serviceFunction, chainingFunction, next, route, limits);
    }

    /** This header with {@code next} as its deadline budget (as the request leaves this node). */
    public ChainHeader withBudget(long next) {
        return new ChainHeader(chain, soFar, serviceFunction, chainingFunction, credit, route,
                new ChainLimits(limits.maxHops(), next, limits.heartbeat()));
    }

    /** This header with {@code next} as its time-to-heartbeat (as the request leaves this node). */
    public ChainHeader withHeartbeat(HeartbeatBudget next) {
        return new ChainHeader(chain, soFar, serviceFunction, chainingFunction, credit, route,
                new ChainLimits(limits.maxHops(), limits.budgetNanos(), next));
    }
}
