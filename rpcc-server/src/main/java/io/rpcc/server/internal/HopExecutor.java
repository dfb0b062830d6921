package io.rpcc.server.internal;

import io.netty.channel.Channel;
import io.netty.util.Timeout;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainMdc;
import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.chain.ExecutorOwner;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RequestHandler;
import io.rpcc.core.internal.chain.RethrownBranchFailure;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.InvocationAbandoned;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.CarriedTimings;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.transport.OutboundStream;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The server side of a node ({@link RequestHandler}): runs each hop of a chain that arrives (paper
 * Fig. 3, steps 3 to 7): the service function, then the chaining function, then what
 * {@link NextHopDecision} makes of its next hop: the next hop, or the result straight to the
 * originator ({@link HopReports}). A service function that returns a {@link SubChain} parks its hop
 * here ({@link Continuations}) and starts the sub-chain; the sub-chain's end returns its result
 * here in a {@link #RETURN} request, which resumes the parked hop's chaining function; a composed
 * sub-chain instead carries that chaining function and state in its return point, and the node
 * where it ends resumes the chain itself. A chaining function that splits the chain sends its
 * branches on and their merge to the merge host, where {@link MergePoints} collects the branches'
 * outcomes and the merge runs as a hop of its own. Runs on the node's executor (virtual threads by
 * default), never
 * on an event loop. Any failure goes to the originator as a typed error naming this hop; the server
 * carries on. The hop's partial replies and
 * its share of the chain's termination credit are handled by {@link HopReplies}: exactly one
 * hand-over per hop decides how much credit travels on with the chain (or its result or error).
 * A hop that arrives past the chain's deadline does not run its service function and ends the
 * chain with a deadline error; a hop whose chain is cancelled while it is here (see
 * {@link HopControl}) stops where it is and sends nothing more: its originator has already ended
 * the chain. Where each chain went from here, and which of its hops run here, is remembered in
 * {@link ChainTrails}, so that a cancel finds them and follows the chain.
 */
public final class HopExecutor implements RequestHandler {
    /**
     * The service function of the request that returns a sub-chain's result (its params) to the node
     * that started the sub-chain, named by the innermost point of the header's return stack.
     */
    public static final String RETURN = HopKind.RETURN.wireName();

    /**
     * Whether {@code serviceFunction} is a name rpcc's own requests use ({@code rpcc.return},
     * {@code rpcc.merge}, ...): no application service function may take it.
     */
    public static boolean isReserved(String serviceFunction) {
        return HopKind.of(serviceFunction) != HopKind.SERVICE;
    }

    private final Node node;
    private final Set<String> services;
    private final HopPolicy policy;
    private final boolean chainingRunsHere;
    private final HopReports reports;
    private final ReplyStreams streams = new ReplyStreams();
    private final ChainTrails trails = new ChainTrails();
    private final Continuations continuations = new Continuations();
    private final ReplyRelays relays;
    private final MergePoints merges;
    private final AtomicLong refusedAfterCancel = new AtomicLong();
    private final RunningHops running;
    private final NextHopDecision decisions;
    /** How long after a hop's functions returned its outcome waits for the work it started to be quiet. */
    static final long QUIET_GRACE_SECONDS = 10;

    private final HopOutcomes outcomes;
    /** Arrivals waiting for their hop's first run here: they heartbeat while they wait. */
    private final WaitingHops waiting = new WaitingHops();

    private final ServiceHop serviceHop;
    private final ProxiedHop proxiedHop;
    private final SubChainReturn subChainReturn;
    private final SubChainFailureReturn subChainFailureReturn;
    private final MergeArrival mergeArrival;
    private final MergedHop mergedHop = new MergedHop();
    private final HopChaining chaining;
    private final HopDecorators decorators;
    private final AtomicHops atomic;

    /**
     * The server side of {@code node}, hosting and running hops as {@code settings} say: the service
     * functions it hosts, its interceptors (the first outermost, around every hop), where its chaining
     * functions run, whether the sub-chains its service functions start are composed with their
     * parents, how long a split merging here waits for its branches, and the outcome cache.
     */
    public HopExecutor(Node node, HopSettings settings) {
        this.node = node;
        this.services = Set.copyOf(settings.services().keySet());
        this.policy = new HopPolicy(node.name(), settings.around().policy(), node.transport().refusals());
        this.chainingRunsHere = settings.proxy().runsHere();
        this.outcomes = new HopOutcomes(settings.outcomeCache().limits(), settings.idempotent(), request -> {
            waiting.handedBack(request);
            node.onRequest(request); // anew, through the node: a node that drains now refuses it
        });
        this.merges = new MergePoints(node.name(), settings.staleBranchTimeout());
        HandOffs handOffs = new HandOffs(node::inFlightChanged);
        FailureLog failures = new FailureLog(node.name());
        this.reports = new HopReports(node, failures, handOffs);
        this.running = new RunningHops(node, streams, trails, failures, reports, handOffs);
        this.decisions = NextHopDecision.of(node);
        this.relays = new ReplyRelays(node, streams);
        HopInterceptors interceptors = new HopInterceptors(node.name(), settings.around().interceptors());
        this.decorators = new HopDecorators(node.name(), settings.around().decorators(), services,
                node.executor());
        this.atomic = new AtomicHops(node);
        this.serviceHop = new ServiceHop(node.name(), settings.services(), interceptors, atomic);
        this.proxiedHop = new ProxiedHop(node.name(), settings.proxy().actsAsOne());
        this.subChainReturn = new SubChainReturn(node.name(), continuations);
        this.subChainFailureReturn = new SubChainFailureReturn(node.name(), continuations, reports);
        this.mergeArrival = new MergeArrival(merges, reports, merged -> start(merged, HopKind.MERGED,
                System.nanoTime(), NodeTransport.LOCAL_PEER));
        NextHopSender sender = new NextHopSender(node, new HopTables(trails, continuations, running, handOffs, reports,
                relays), mergeArrival, interceptors, settings, atomic);
        this.chaining = new HopChaining(node, interceptors, sender, reports, settings.proxy().node() != null);
    }

    /** Takes up {@code request}, arrived at {@code arrivedNanos}: decodes what it is, once, here. */
    @Override
    public void onRequest(ChainRequest request, long arrivedNanos) {
        onRequest(request, arrivedNanos, NodeTransport.LOCAL_PEER);
    }

    /**
     * Takes up {@code request}, arrived at {@code arrivedNanos} from {@code peer}, whose shares of
     * this node's tables (trails, outcome cache, compile queue) it counts in.
     */
    @Override
    public void onRequest(ChainRequest request, long arrivedNanos, String peer) {
        start(request, HopKind.of(request.header().serviceFunction()), arrivedNanos, peer);
    }

    /**
     * Starts {@code request}, of {@code kind}, that arrived (or, for a merge, was made here) at
     * {@code arrivedNanos}: a hop whose first run is still running here waits for it; the others run
     * on the node's executor, as hops of their own here (with their own control and replies).
     */
    private void start(ChainRequest request, HopKind kind, long arrivedNanos, String peer) {
        ChainCaller caller = request.caller() != null ? request.caller()
                : new ChainCaller(request.header().origin(), false, peer, null);
        IsolationLevel isolation;
        if (kind == HopKind.SERVICE && services.contains(request.header().serviceFunction())) {
            try {
                isolation = policy.admit(request.header(), caller);
            } catch (HopFailure denied) {
                discardStream(request, "the hop was refused: " + denied.getMessage());
                node.executor().execute(() -> refuse(request.header(), denied));
                return;
            }
        } else { // the engine's own hops (returns, merges, proxied hops) run their chain's functions too
            isolation = policy.isolationOf(request.header(), caller);
        }
        // (an atomic chain's hops are never replayed: each attempt is a transaction of its own)
        HopOutcomes.Outcome claim = kind == HopKind.SERVICE && services.contains(request.header().serviceFunction())
                && !request.header().atomic() ? outcomes.claim(request, arrivedNanos, peer) : null;
        if (claim == HopOutcomes.WAITING) { // the same hop runs here: handled anew when it has ended
            waiting.waits(request, arrivedNanos);
            return;
        }
        HopControl control = trails.arrive(request.header(), arrivedNanos, peer);
        if (control == null) { // the chain was cancelled before its request got here: its originator has ended it
            refusedAfterCancel.incrementAndGet();
            outcomes.ended(claim, System.nanoTime());
            discardStream(request, "its chain was cancelled");
            return;
        }
        Executor executor = node.executor();
        if (node.settings().executorOwner() == ExecutorOwner.RPCC && chainingRunsHere
                && node.functions().prefersPlatformThread(request.header().chainingFunction())) {
            // the sandboxed chaining function needs a platform thread: start the hop on one rather
            // than hand the function over from a virtual thread and back (two wake-ups per hop)
            executor = FunctionRuntime.platformThreads();
        }
        RunningHops.Hop hop = running.arrived(request.header(), control, peer, new RunningHops.Asker(caller, isolation));
        if (claim != null && !claim.replays()) {
            hop.replies().recordInto(claim); // its replies are kept with its outcome, for a replay
        }
        Executor runOn = executor;
        try {
            executor.execute(new Runnable() {
                @Override
                public void run() {
                    boolean parked = false;
                    try {
                        ChainHeader h = request.header();
                        // neither a proxy nor a return nor a merge is a hop of its own
                        List<String> path = kind.isHopOfItsOwn() ? node.pathThrough(h) : h.path();
                        HopWatch watch = decorators.watch(kind);
                        hop.replies().tellReplies(watch);
                        HopExecutor.this.run(new HopState(kind, h, path, new CopyOnWriteArrayList<>(h.console()),
                                CarriedTimings.continuing(h.timings()), hop, watch), request, arrivedNanos, claim);
                    } catch (HopParked p) {
                        // an atomic hop waits for a lock without a thread, still running here (heartbeats,
                        // deadline, cancel): it runs again, anew, when the lock is granted
                        parked = true;
                        Runnable again = this;
                        p.resume().whenComplete((v, e) -> resubmit(runOn, again));
                    } finally {
                        if (!parked) {
                            ended(request, claim, hop, control);
                        }
                    }
                }
            });
        } catch (RuntimeException e) { // an executor that refuses work: the hop fails here
            outcomes.ended(claim, System.nanoTime());
            discardStream(request, "the hop could not start");
            running.ran(hop);
            ChainHeader h = request.header();
            reports.sendFailure(h, new HopFailure(ChainErrorCode.INTERNAL, e.getClass().getName(), "server '" + node.name()
                    + "' could not start the hop: its executor refused it: " + e, List.of(), e), node.pathThrough(h),
                    h.console(), h.timings(), hop.replies().handOver(h.credit()));
        }
    }

    /** The hop {@code hop} of {@code request} ran here (or failed): what it claimed and held is let go. */
    private void ended(ChainRequest request, HopOutcomes.Outcome claim, RunningHops.Hop hop, HopControl control) {
        // the outcome is complete (and replayable) once the hop's replies are: when it is quiet
        if (claim != null) {
            endWhenQuiet(claim, hop.replies(), control);
        }
        if (!hop.keepsInput()) {
            discardStream(request, "its hop ended");
        }
        OutboundStream unsent = hop.takeOutput();
        if (unsent != null) {
            unsent.discard("its hop ended without sending it on");
        }
        running.ran(hop);
    }

    /** Runs {@code parked}, a parked hop whose lock was granted (or whose transaction ended), again on {@code executor}. */
    private void resubmit(Executor executor, Runnable parked) {
        try {
            executor.execute(parked);
        } catch (RuntimeException refused) { // a closing node's executor: the hop runs here, and fails or is dropped
            node.executor().execute(parked);
        }
    }

    /** Drops the data stream of {@code request}, if it has one and it is not over (its sender is told to stop). */
    private static void discardStream(ChainRequest request, String why) {
        if (request.stream() != null) {
            request.stream().discard(why);
        }
    }

    /**
     * Ends {@code claim} (its outcome becomes replayable, its waiters go on) when the hop's replies
     * are complete: when it is quiet, or at the latest {@link #QUIET_GRACE_SECONDS} after its
     * functions returned (work it started that runs longer than that keeps no more replies for a
     * replay, and does not hold a retry of the hop back).
     */
    private void endWhenQuiet(HopOutcomes.Outcome claim, HopReplies replies, HopControl control) {
        CompletableFuture<Void> quiet = replies.whenQuiet();
        if (quiet.isDone()) {
            outcomes.ended(claim, System.nanoTime(), control.isCancelled());
            return;
        }
        Timeout grace;
        try { // (only the first of the two calls ends it)
            grace = node.timer().newTimeout(t -> outcomes.ended(claim, System.nanoTime(),
                    control.isCancelled()), QUIET_GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (IllegalStateException stopped) { // the node is closing
            outcomes.ended(claim, System.nanoTime());
            return;
        }
        quiet.whenComplete((v, e) -> {
            grace.cancel(); // most hops are quiet long before: the timer does not hold them for the grace
            outcomes.ended(claim, System.nanoTime(), control.isCancelled());
        });
    }

    /** Refuses the hop of {@code h} before it runs (the node drains): its decorators are told so. */
    @Override
    public void refuse(ChainHeader h, HopFailure why) {
        List<String> path = node.pathThrough(h);
        HopWatch watch = decorators.refused(h, HopKind.of(h.serviceFunction()), why.located(node.name(), h.hop(), path,
                h.console(), h.timings()));
        watch.track(reports.sendFailure(h, why, path, h.console(), h.timings(), h.credit()));
        watch.ran(null);
    }

    @Override
    public boolean grant(WindowUpdateFrame grant) {
        return streams.grant(grant.chainId(), grant.secret(), grant.hop(), grant.host(), grant.replies(), grant.bytes());
    }

    @Override
    public boolean cancel(CancelFrame cancel) {
        return cancel(cancel, NodeTransport.LOCAL_PEER);
    }

    @Override
    public boolean cancel(CancelFrame cancel, String peer) {
        ChainTrails.Cancelled c = trails.cancel(cancel, System.nanoTime(), peer);
        if (c == null) {
            return false;
        }
        c.hops().forEach(HopControl::cancel);
        atomic.cancelled(cancel.origin(), cancel.chainId()); // an atomic chain's transaction aborts here
        outcomes.forgetChain(cancel.origin(), cancel.chainId()); // a cancelled chain is never sent again
        continuations.forgetChain(cancel.origin(), cancel.chainId());
        relays.forgetChain(cancel.origin(), cancel.chainId());
        merges.forgetChain(cancel.origin(), cancel.chainId());
        if (c.next() != null) {
            node.passCancel(c.next(), new CancelFrame(cancel.chainId(), cancel.secret(), cancel.origin(),
                    decisions.budgetForNext(c.budgetNanos())));
        }
        for (String other : c.others()) { // a split's branches and merge host
            node.passCancel(other, new CancelFrame(cancel.chainId(), cancel.secret(), cancel.origin(),
                    decisions.budgetForNext(c.budgetNanos())));
        }
        return !c.overShare(); // over its share of made-up chains' cancels: held against its connection
    }

    @Override
    public boolean decide(TxFrames.Decide decide, Channel from) {
        return atomic.decide(decide, from);
    }

    @Override
    public void peerQuery(TxFrames.Query query, Channel from) {
        atomic.peerQuery(query, from);
    }

    /** The transactions of atomic chains at this node (test hook and stats). */
    public io.rpcc.server.internal.atomic.LocalTransactions transactions() {
        return atomic.engine();
    }

    @Override
    public void sendDueHeartbeats(long nowNanos) {
        running.sendDueHeartbeats(nowNanos);
        Consumer<ChainHeader> beat = h -> node.sendHeartbeat(h, h.hop(), h.branch(),
                HeartbeatFrame.siblingsOf(h.branch(), h.returnStack()));
        merges.sendDueHeartbeats(nowNanos, beat);
        waiting.sendDueHeartbeats(nowNanos, beat);
        atomic.sweep(nowNanos); // transactions without a decision ask their originators
        outcomes.expire(nowNanos); // expired outcomes and trails go without waiting for new traffic
        trails.expire(nowNanos);
    }

    /**
     * Cancels of chains never seen here forgotten early to make room for newer ones of the same peer
     * (a flood of cancels for made-up chains), and trails forgotten early to make room.
     */
    public long forgottenCancels() {
        return trails.forgottenCancels();
    }

    /** Trails forgotten before their time to make room for others (their chains cannot be cancelled past here). */
    public long forgottenTrails() {
        return trails.forgottenTrails();
    }

    /** Chains remembered for their cancellation (expired ones are forgotten first). */
    public int trackedChains() {
        return trails.size();
    }

    /** Chains parked here while a sub-chain they started runs (expired ones are forgotten first). */
    public int parkedChains() {
        return continuations.size();
    }

    /** Sub-chain results that came back here to resume a chain parked here. */
    public long subChainReturns() {
        return subChainReturn.arrived();
    }

    @Override
    public boolean relay(Object frame, Channel from) {
        return relays.relay(frame, from);
    }

    /** Sub-chains started here whose replies go through this node, still remembered. */
    public int replyRelays() {
        return relays.size();
    }

    /** Partial replies (or credit) of sub-chains started here that could not be passed on (logged). */
    public long relayedRepliesLost() {
        return relays.lost();
    }

    /**
     * Partial replies of hops here (and replies relayed here) that found no room in their originators'
     * windows and waited for it (flow control).
     */
    public long replyWaits() {
        return streams.replyWaits();
    }

    /** The time the replies counted in {@link #replyWaits()} waited, in all. */
    public long replyWaitNanos() {
        return streams.replyWaitNanos();
    }

    /** Outcomes of branches of splits merging here that were dropped: stale, or matching no split. */
    public long droppedBranchOutcomes() {
        return merges.droppedOutcomes();
    }

    /** Splits waiting here, their merge host, for outcomes of their branches. */
    public int waitingMerges() {
        return merges.waiting();
    }

    /** Hops that replayed the outcomes of their first run here (a chain sent again). */
    public long outcomeCacheHits() {
        return outcomes.hits();
    }

    /** Hops whose outcomes are kept that found none to replay. */
    public long outcomeCacheMisses() {
        return outcomes.misses();
    }

    /** Kept outcomes dropped: expired or beyond a bound. */
    public long outcomeCacheEvictions() {
        return outcomes.evictions();
    }

    /** Hops that waited for the first run of the same hop, still running here. */
    public long outcomeCacheAttached() {
        return outcomes.attached();
    }

    /** Outcomes kept now. */
    public int outcomeCacheSize() {
        return outcomes.size();
    }

    /** Estimated bytes of the outcomes kept now. */
    public long outcomeCacheBytes() {
        return outcomes.bytes();
    }

    /** Hop requests refused because their chain had been cancelled. */
    public long refusedAfterCancel() {
        return refusedAfterCancel.get();
    }

    @Override
    public int hopsInFlight() {
        return running.size();
    }

    /** Reply streams of hops running here that hold or wait for room in their originators' windows. */
    public int replyStreams() {
        return streams.size();
    }

    @Override
    public CompletableFuture<Void> abandonHops() {
        return running.abandonAll();
    }

    /**
     * Runs {@code hop}, of {@code request} (arrived at {@code arrivedNanos}), recording its outcome in
     * or replaying it from {@code cached} (if not {@code null}), on this thread: the handler of its
     * kind, then its chaining function; then, as long as a hop ends a composed sub-chain, the
     * parent's chaining function resumes on this thread too.
     */
    private void run(HopState hop, ChainRequest request, long arrivedNanos, HopOutcomes.Outcome cached) {
        if (hop.kind().arrivesAtMerge()) {
            mergeArrival.arrived(hop, request);
            return;
        }
        SubChainReturn.Composed composed = runGuarded(hop, request, arrivedNanos, cached, null);
        while (composed != null) {
            HopState from = composed.from();
            ChainHeader h = from.header();
            ChainHeader nh = h.onward(new ChainSoFar(h.hop(), from.path(), from.consoleNow(), from.timings(), composed.metadata()), HopKind.RETURN.wireName(), ChainingFunctionSource.NONE, h.credit(), composed.back().budgetNanos());
            HopWatch watch = decorators.watch(HopKind.RETURN);
            from.replies().tellReplies(watch);
            HopState back = new HopState(HopKind.RETURN, nh, nh.path(), new CopyOnWriteArrayList<>(nh.console()),
                    CarriedTimings.continuing(nh.timings()), from.running(), watch);
            composed = runGuarded(back, new ChainRequest(nh, composed.back().result(), ChainState.empty(), null),
                    System.nanoTime(), null, h.serviceFunction());
        }
    }

    /**
     * Runs {@code hop} as {@link #run} does, up to a composed return (returned, to run next); for a
     * composed return, {@code endedAfter} is the service function of the hop that ended the
     * sub-chain. A failure goes to the originator (or the sub-chain's creator, or the split's merge
     * host) as a typed error naming this hop, unless the chain was cancelled or the node closed.
     */
    private SubChainReturn.Composed runGuarded(HopState hop, ChainRequest request, long arrivedNanos,
                                               HopOutcomes.Outcome cached, String endedAfter) {
        HopState at = hop; // a return resumes the parked hop: its chaining function, the stack popped
        // the hop's chain in the MDC for every line logged on this thread while it runs, rpcc's own too
        ChainContext.Scope mdc = ChainMdc.put(hop.chainId(), hop.header().hop(), hop.header().origin());
        boolean parked = false;
        try {
            decorators.decorate(hop); // first of all: one that throws rejects the hop
            if (hop.control().isCancelled()) {
                hop.replies().handOver(hop.header().credit()); // cancelled while it waited for a thread
                return null;
            }
            if (request.decodeError() != null) {
                throw request.decodeError();
            }
            HopResult r = switch (hop.kind()) {
                case SERVICE -> serviceHop.run(hop, request, arrivedNanos, cached);
                case PROXY -> proxiedHop.run(hop, request);
                case RETURN -> endedAfter != null ? subChainReturn.composed(hop, request, endedAfter, arrivedNanos)
                        : subChainReturn.arrived(hop, request, arrivedNanos);
                case RETURN_FAILURE -> subChainFailureReturn.run(hop, SubChainFailures.carried(request), arrivedNanos);
                case MERGED -> mergedHop.run(hop, request);
                case SPLIT_OPENING, BRANCH_OUTCOME, BRANCH_FAILURE ->
                        throw new IllegalStateException("an arrival at a merge host is not a hop: " + hop.kind());
            };
            if (r == null) {
                return null;
            }
            at = r.hop();
            return chaining.run(r);
        } catch (HopParked p) {
            parked = true;
            throw p;
        } catch (InvocationAbandoned a) {
            // the hop failed when its chaining function was abandoned; what it did since is dropped
        } catch (RuntimeException | Error e) {
            reportFailure(at, e);
        } finally {
            if (!parked) {
                atomic.sendHeldVote(hop.replies()); // an atomic hop's vote that did not go with the chain's result
                at.watch().ran(at); // (the watch of a hop resumed by a return is the return's)
            }
            mdc.close();
        }
        return null;
    }

    /** Reports that {@code hop} failed with {@code e}, unless its chain was cancelled or the node closed. */
    private void reportFailure(HopState hop, Throwable e) {
        ChainHeader h = hop.header();
        if (h.atomic() && !hop.control().isCancelled() && hop.kind() == HopKind.SERVICE) {
            // the participant here votes (so the originator tells it the decision), with a slice of the credit,
            // unless the hop voted before it failed (in its chaining step) or the closing node reported it
            h = h.withCredit(atomic.voteAfter(h, h.credit(), hop.replies(), false));
        }
        atomic.sendHeldVote(hop.replies()); // (a vote held while the chaining step ran) before the failure leaves
        HopReplies replies = hop.replies();
        if (hop.control().isCancelled()) {
            replies.handOver(h.credit()); // failed because it was interrupted: the originator has ended the chain
            hop.watch().cancelled();
        } else if (replies.abandoned()) {
            // its server is closing and reported the hop (NODE_CLOSED, with its credit): a report now is late
        } else if (e instanceof HopFailure f) {
            reports.hopFailed(hop, h, f, hop.consoleNow(), hop.timings(), replies.handOver(h.credit()));
        } else if (e instanceof RethrownBranchFailure r) { // named where the branch failed, not here
            reports.passOn(hop, h, r.located(hop.consoleNow(), hop.timings()), replies.handOver(h.credit()));
        } else {
            reports.hopFailed(hop, h, new HopFailure(ChainErrorCode.INTERNAL, e.getClass().getName(), "internal error at '"
                    + node.name() + "': " + e, FunctionRuntime.stackTrace(e), e), hop.consoleNow(),
                    hop.timings(), replies.handOver(h.credit()));
        }
    }
}
