package io.rpcc.server.internal;

import io.netty.channel.Channel;
import io.netty.util.Timeout;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.SubChain;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.chain.DefaultExecutor;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.chain.RethrownBranchFailure;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RequestHandler;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.spi.InvocationAbandoned;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.CodedFailure;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.server.ServerInterceptor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
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
    /** The service function a server asks its chaining proxy to run the chaining function for. */
    public static final String CHAIN_AT_PROXY = "rpcc.proxy.chain";
    /**
     * The service function of the request that returns a sub-chain's result (its params) to the node
     * that started the sub-chain, named by the innermost point of the header's return stack.
     */
    public static final String RETURN = "rpcc.return";

    /**
     * Whether {@code serviceFunction} is a name rpcc's own requests use ({@code rpcc.return},
     * {@code rpcc.merge}, ...): no application service function may take it.
     */
    public static boolean isReserved(String serviceFunction) {
        return HopKind.of(serviceFunction) != HopKind.SERVICE;
    }

    private final Map<String, ServiceFunction> services;
    private final String chainingProxy;
    private final boolean actsAsProxy;
    private final List<ServerInterceptor> interceptors;
    private final Node node;
    private final HopReports reports;
    private final ReplyStreams streams = new ReplyStreams();
    private final ChainTrails trails = new ChainTrails();
    private final Continuations continuations = new Continuations();
    private final ReplyRelays relays;
    private final MergePoints merges;
    private final AtomicLong refusedAfterCancel = new AtomicLong();
    private final RunningHops running;
    private final HandOffs handOffs;
    private final NextHopDecision decisions;
    private final boolean composesSubChains;
    private final AtomicLong subChainReturns = new AtomicLong();
    /** How long after a hop's functions returned its outcome waits for the work it started to be quiet. */
    static final long QUIET_GRACE_SECONDS = 10;

    private final HopOutcomes outcomes;
    /** Arrivals waiting for their hop's first run here: they heartbeat while they wait. */
    private final WaitingHops waiting = new WaitingHops();

    /**
     * The server side of {@code node}, hosting {@code services}, which hands its chaining functions
     * to {@code chainingProxy} (if not null) and runs them for other servers if {@code actsAsProxy},
     * with {@code interceptors} (the first outermost) around every hop; the sub-chains its service
     * functions start are composed with their parents unless {@code composesSubChains} is false or
     * the sub-chain says otherwise; a split merging here is dropped, with the outcomes of its branches,
     * if it is not complete after {@code staleBranchTimeout}. The outcomes of the hops that run here
     * are kept for chains sent again (see {@link HopOutcomes}) as {@code outcomeCacheEntries},
     * {@code outcomeCacheBytes} and {@code outcomeCacheTtl} say (a zero turns the cache off), except
     * those of the service functions named in {@code idempotent}.
     */
    public HopExecutor(Node node, Map<String, ServiceFunction> services, String chainingProxy, boolean actsAsProxy,
                       List<ServerInterceptor> interceptors, boolean composesSubChains, Duration staleBranchTimeout,
                       int outcomeCacheEntries, long outcomeCacheBytes, Duration outcomeCacheTtl, Set<String> idempotent) {
        this.outcomes = new HopOutcomes(new HopOutcomes.Limits(outcomeCacheEntries, outcomeCacheBytes, outcomeCacheTtl),
                idempotent, request -> {
                    waiting.handedBack(request);
                    node.onRequest(request);
                });
        this.merges = new MergePoints(node.name(), staleBranchTimeout);
        this.node = node;
        this.handOffs = new HandOffs(node::inFlightChanged);
        this.services = Map.copyOf(services);
        this.chainingProxy = chainingProxy;
        this.actsAsProxy = actsAsProxy;
        this.interceptors = List.copyOf(interceptors);
        FailureLog failures = new FailureLog(node.name());
        this.reports = new HopReports(node, failures, handOffs);
        this.running = new RunningHops(node, streams, trails, failures, reports, handOffs);
        this.decisions = NextHopDecision.of(node);
        this.composesSubChains = composesSubChains;
        this.relays = new ReplyRelays(node, streams);
    }

    @Override
    public void onRequest(ChainRequest request, long arrivedNanos) {
        HopOutcomes.Outcome claim = services.containsKey(request.header().serviceFunction())
                ? outcomes.claim(request, arrivedNanos) : null;
        if (claim == HopOutcomes.WAITING) { // the same hop runs here: handled anew when it has ended
            waiting.waits(request, arrivedNanos);
            return;
        }
        HopControl control = trails.arrive(request.header(), arrivedNanos);
        if (control == null) { // the chain was cancelled before its request got here: its originator has ended it
            refusedAfterCancel.incrementAndGet();
            outcomes.ended(claim, System.nanoTime());
            return;
        }
        Executor executor = node.executor();
        if (executor instanceof DefaultExecutor && (chainingProxy == null || actsAsProxy)
                && node.functions().prefersPlatformThread(request.header().chainingFunction())) {
            // the sandboxed chaining function needs a platform thread: start the hop on one rather
            // than hand the function over from a virtual thread and back (two wake-ups per hop)
            executor = FunctionRuntime.platformThreads();
        }
        RunningHops.Hop hop = running.arrived(request.header(), control);
        if (claim != null && !claim.replays()) {
            hop.replies().recordInto(claim); // its replies are kept with its outcome, for a replay
        }
        try {
            executor.execute(() -> {
                try {
                    run(request, control, arrivedNanos, hop.replies(), null, claim);
                } finally {
                    // the outcome is complete (and replayable) once the hop's replies are: when it is quiet
                    if (claim != null) {
                        endWhenQuiet(claim, hop.replies(), control);
                    }
                    running.ran(hop);
                }
            });
        } catch (RuntimeException e) { // an executor that refuses work: the hop fails here
            outcomes.ended(claim, System.nanoTime());
            running.ran(hop);
            ChainHeader h = request.header();
            reports.sendFailure(h, new HopFailure(ErrorCode.INTERNAL, e.getClass().getName(), "server '" + node.name()
                    + "' could not start the hop: its executor refused it: " + e, List.of(), e), node.pathThrough(h),
                    h.console(), h.timings(), hop.replies().handOver(h.credit()));
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

    @Override
    public void refuse(ChainHeader h, HopFailure why) {
        reports.sendFailure(h, why, node.pathThrough(h), h.console(), h.timings(), h.credit());
    }

    @Override
    public boolean grant(WindowUpdateFrame grant) {
        return streams.grant(grant.chainId(), grant.secret(), grant.hop(), grant.host(), grant.replies(), grant.bytes());
    }

    @Override
    public boolean cancel(CancelFrame cancel) {
        ChainTrails.Cancelled c = trails.cancel(cancel.origin(), cancel.chainId(), cancel.secret(), cancel.budgetNanos(),
                System.nanoTime());
        if (c == null) {
            return false;
        }
        c.hops().forEach(HopControl::cancel);
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
        return true;
    }

    @Override
    public void sendDueHeartbeats(long nowNanos) {
        running.sendDueHeartbeats(nowNanos);
        Consumer<ChainHeader> beat = h -> node.sendHeartbeat(h, h.hop(), h.branch(),
                HeartbeatFrame.siblingsOf(h.branch(), h.returnStack()));
        merges.sendDueHeartbeats(nowNanos, beat);
        waiting.sendDueHeartbeats(nowNanos, beat);
        outcomes.expire(nowNanos); // expired outcomes and trails go without waiting for new traffic
        trails.expire(nowNanos);
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
        return subChainReturns.get();
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
     * Runs the hop of {@code request}; {@code composedAfter} is null for a request that arrived, and,
     * for the return a hop makes to a composed point on its own thread ({@link #carryOut}), the
     * service function that hop ran: the popped header keeps it (never {@link #RETURN}, which would
     * say the point is still to be popped: {@link SubChainFailures} would then skip a creator).
     */
    private void run(ChainRequest request, HopControl control, long arrivedNanos,
                     HopReplies replies, String composedAfter, HopOutcomes.Outcome cached) {
        ChainHeader arrived = request.header();
        ChainHeader h = arrived; // a return resumes the parked hop: its chaining function, the stack popped
        HopKind kind = HopKind.of(h.serviceFunction());
        if (kind.arrivesAtMerge()) {
            mergeArrived(request, control, replies);
            return;
        }
        boolean proxied = kind == HopKind.PROXY;
        boolean returning = kind == HopKind.RETURN;
        boolean failing = kind == HopKind.RETURN_FAILURE;
        boolean merging = kind == HopKind.MERGED;
        // neither a proxy nor a return nor a merge is a hop of its own
        List<String> path = kind.isHopOfItsOwn() ? node.pathThrough(h) : h.path();
        List<ConsoleLine> console = new CopyOnWriteArrayList<>(h.console());
        List<HopTiming> timings = new ArrayList<>(h.timings());
        String chainId = h.origin() + "#" + h.chainId();
        boolean replaying = cached != null && cached.replays(); // else a claim owns the entry: it records
        try {
            if (control.isCancelled()) {
                replies.handOver(h.credit()); // cancelled while it waited for a thread
                return;
            }
            if (request.decodeError() != null) {
                throw request.decodeError();
            }
            long left = control.remainingNanos(System.nanoTime());
            if (kind.isHopOfItsOwn() && left <= 0) {
                throw new HopFailure(ErrorCode.DEADLINE_EXCEEDED, "hop " + h.hop() + " ('" + h.serviceFunction()
                        + "' at '" + node.name() + "') started " + TimeUnit.NANOSECONDS.toMillis(-left)
                        + " ms after the chain's deadline, so its service function did not run; give the chain a "
                        + "later deadline (ChainCall.deadline or timeout) or make the hops before it faster");
            }
            Object result;
            HopTiming timing;
            ChainState state = request.state();
            if (proxied) { // paper 7.3: run the chaining function for the server that ran the service function
                if (!actsAsProxy || timings.isEmpty()) {
                    throw new HopFailure(ErrorCode.UNKNOWN_SERVICE_FUNCTION, "node '" + node.name()
                            + "' is not a chaining proxy (RpccServer.builder(...).actAsChainingProxy())");
                }
                result = request.params();
                timing = timings.removeLast();
            } else if (returning) { // paper 3.4: a sub-chain this node started returns its result
                if (composedAfter != null) { // composed: resumed where the sub-chain ended, on this hop
                    ReturnPoint point = h.returnStack().getLast();
                    h = h.onward(new ChainSoFar(h.hop(), h.path(), h.console(), h.timings(), h.metadata()),
                            composedAfter, point.chainingFunction(), h.credit(), h.budgetNanos())
                            .with(point.chainingFunction(), h.returnStack().subList(0, h.returnStack().size() - 1));
                    state = point.state();
                    if (point.node().node().equals(node.name())) { // ended at its creator: a hop parked here for a
                        continuations.forget(point.continuation()); // failure handler is not needed any more
                    }
                } else { // one that arrived finds the hop parked here (also for a composed point, if parked)
                    Continuations.Parked parked = resume(h);
                    subChainReturns.incrementAndGet();
                    h = parked.resumed(h);
                    state = parked.state();
                }
                result = request.params();
                timing = new HopTiming(h.hop(), node.name(), RETURN, System.nanoTime() - arrivedNanos, 0, 0, 0,
                        node.name());
            } else if (failing) { // paper 3.8: a sub-chain this node started failed; its handler decides
                CodedFailure failed = SubChainFailures.carried(request);
                Continuations.Parked parked = parkedFor(h);
                SubChainFailures.Decision decision;
                try (var scope = context(h, chainId, console, replies, control, "failure-handler").push()) {
                    decision = SubChainFailures.decide(parked, failed, node.name(), h.returnStack().getLast());
                }
                if (decision instanceof SubChainFailures.PassOn on) {
                    reports.passOn(parked == null ? h : parked.resumed(h), on.failure().code(), on.failure().failure(),
                            replies.handOver(h.credit()));
                    return;
                }
                h = parked.resumed(h);
                state = parked.state();
                result = ((SubChainFailures.Recover) decision).result();
                timing = new HopTiming(h.hop(), node.name(), SubChainFailures.RETURN_FAILURE,
                        System.nanoTime() - arrivedNanos, 0, 0, 0, node.name());
            } else if (merging) { // paper 3.10: every branch of a split merging here has ended
                result = request.params();
                timing = timings.removeLast();
            } else if (replaying) { // paper 3.9: the chain was sent again; this hop's service function ran here
                replies.resend(cached.replies()); // those an earlier attempt lost arrive now; the others are dropped
                result = cached.result();
                timing = new HopTiming(h.hop(), node.name(), h.serviceFunction(), System.nanoTime() - arrivedNanos, 0,
                        0, 0, node.name());
            } else {
                ServiceRun run = runService(h, request, console, replies, control, chainId, arrivedNanos, cached);
                if (control.isCancelled()) {
                    replies.handOver(h.credit()); // the result is for nobody: the originator ended the chain
                    return;
                }
                if (cached != null) {
                    cached.served(run.result());
                }
                result = run.result();
                timing = run.timing();
            }
            ChainingFunctionSource cf = h.chainingFunction();
            if (!proxied) {
                NextHopDecision.Action outcome = decisions.afterService(result, h.hop(), h.maxHops(), cf,
                        control.remainingNanos(System.nanoTime()), h.returnStack());
                if (!(outcome instanceof NextHopDecision.RunChainingFunction)) {
                    timings.add(timing);
                    carryOut(outcome, h, path, console, timings, replies, control, state,
                            context(h, chainId, console, replies, control, "service:" + h.serviceFunction()));
                    return;
                }
                if (chainingProxy != null && !merging) {
                    delegate(h, path, console, timings, timing, state, result, replies, control);
                    return;
                }
            }
            NextHop replayed = replaying ? cached.next() : null;
            if (replayed != null) { // the chaining function ran here on this hop before: its decision stands
                timings.add(timing);
                carryOut(decisions.decide(replayed, h.hop(), h.maxHops(), cf, control.remainingNanos(System.nanoTime()),
                        h.returnStack()), h, path, console, timings, replies, control, state,
                        context(h, chainId, console, replies, control, "chaining"));
                return;
            }
            FunctionRuntime.Loaded loaded = node.functions().load(cf);
            long cfStart = System.nanoTime();
            NextHop next;
            HopContext cfContext = context(h, chainId, console, replies, control, "chaining");
            HopTiming serviceTiming = timing;
            ChainHeader resumed = h;
            try (var scope = cfContext.push()) {
                // if the sandbox abandons a function stuck in a JDK call, the hop fails from the watchdog at once
                // (with the timings rebuilt from the header: this hop's list belongs to the stuck thread)
                next = interceptChaining(cfContext, state, result, (st, value) ->
                        node.functions().invoke(loaded.function(), st, value, failure -> {
                            if (control.isCancelled()) { // the originator has ended the chain: nothing to report
                                replies.handOver(resumed.credit());
                                return;
                            }
                            List<HopTiming> at = new ArrayList<>(resumed.timings());
                            if (proxied || merging) {
                                at.removeLast();
                            }
                            at.add(serviceTiming.withChaining(loaded.loadNanos(), System.nanoTime() - cfStart,
                                    node.name()));
                            reports.sendFailure(resumed, failure, path, List.copyOf(console), at,
                                    replies.handOver(resumed.credit()));
                        }));
            } catch (HopFailure f) {
                // a merge giving up on a failed branch: the chain fails with that branch's failure
                throw merging ? RethrownBranchFailure.of(f, result, node.name(), h.hop()) : f;
            } finally {
                timings.add(timing.withChaining(loaded.loadNanos(), System.nanoTime() - cfStart, node.name()));
            }
            if (control.isCancelled()) {
                replies.handOver(h.credit()); // no further hop starts
                return;
            }
            if (cached != null && !replaying && kind.isHopOfItsOwn()) {
                cached.chained(next);
            }
            carryOut(decisions.decide(next, h.hop(), h.maxHops(), cf, control.remainingNanos(System.nanoTime()),
                    h.returnStack()), h, path, console, timings, replies, control, state, cfContext);
        } catch (InvocationAbandoned a) {
            // the hop failed when its chaining function was abandoned; what it did since is dropped
        } catch (RuntimeException | Error e) {
            if (control.isCancelled()) {
                replies.handOver(h.credit()); // failed because it was interrupted: the originator has ended the chain
            } else if (replies.abandoned()) {
                // its server is closing and reported the hop (NODE_CLOSED, with its credit): a report now is late
            } else if (e instanceof HopFailure f) {
                reports.sendFailure(h, f, path, List.copyOf(console), timings, replies.handOver(h.credit()));
            } else if (e instanceof RethrownBranchFailure r) { // named where the branch failed, not here
                reports.passOn(h, r.code(), r.failure(List.copyOf(console), timings), replies.handOver(h.credit()));
            } else {
                reports.sendFailure(h, new HopFailure(ErrorCode.INTERNAL, e.getClass().getName(), "internal error at '"
                        + node.name() + "': " + e, FunctionRuntime.stackTrace(e), e), path, List.copyOf(console), timings,
                        replies.handOver(h.credit()));
            }
        }
    }

    /** The context of this hop's functions, writing to {@code console} as {@code source}. */
    private HopContext context(ChainHeader h, String chainId, List<ConsoleLine> console, HopReplies replies,
                               HopControl control, String source) {
        return new HopContext(chainId, h.origin(), h.hop(), node.name(), new VirtualConsole(h.hop(), node.name(),
                source, console), replies.unkeyed(), h.metadata(), h.branch(), control); // not the service function's
    }

    /**
     * Carries out what {@link NextHopDecision} made of this hop's outcome: the chain's result to its
     * originator, the next hop, a sub-chain started, or a sub-chain's result back to its creator.
     * {@code state} is the state of the hop's chaining function (parked if a sub-chain starts).
     */
    private void carryOut(NextHopDecision.Action action, ChainHeader h, List<String> path, List<ConsoleLine> console,
                          List<HopTiming> timings, HopReplies replies, HopControl control, ChainState state,
                          HopContext context) {
        switch (action) {
            case NextHopDecision.Finish finish -> {
                Credit pass = replies.handOver(h.credit());
                if (!replies.abandoned()) { // (abandoned: the closing node reported the hop, with its credit)
                    reports.sendResult(h, path, List.copyOf(console), timings, finish.result(), pass);
                }
            }
            case NextHopDecision.Forward onward -> {
                Metadata metadata = interceptForward(context, onward.call());
                List<ConsoleLine> consoleNow = List.copyOf(console);
                Credit pass = replies.handOver(h.credit());
                if (replies.abandoned()) {
                    return;
                }
                ChainHeader nh = h.onward(new ChainSoFar(onward.hop(), path, consoleNow, timings, metadata),
                        onward.serviceFunction(), onward.chainingFunction(), pass, onward.budgetNanos());
                handOn(h, onward.server(), null, new ChainRequest(nh, onward.params(), onward.state(), null), path,
                        consoleNow, timings, pass, control, () -> { });
            }
            case NextHopDecision.StartSubChain start -> {
                SubChain sub = start.subChain();
                Metadata metadata = interceptForward(context, sub.firstHop());
                NodeAddress self = new NodeAddress(node.name(), node.transport().advertisedHost(), node.transport().port());
                boolean composed = sub.composition().orElse(composesSubChains);
                // composed, the point carries the hop's chaining function and state and nothing is parked
                // here unless the sub-chain's failure handler needs the hop (the number still names this
                // creator's share of the chain, e.g. for its failures)
                long number = composed && sub.failureHandler() == null ? continuations.reserve()
                        : continuations.park(h, h.chainingFunction(), state, control.remainingNanos(System.nanoTime()),
                        System.nanoTime(), sub);
                List<ReturnPoint> stack = new ArrayList<>(h.returnStack());
                ReturnPoint point = composed
                        ? ReturnPoint.composed(self, number, !sub.sendsRepliesToOriginator(), h.chainingFunction(), state)
                        : new ReturnPoint(self, number, !sub.sendsRepliesToOriginator());
                stack.add(point);
                if (point.repliesToCreator()) { // paper 7.1: its replies come here, to be handled or passed on
                    relays.open(h, point, sub.replyHandler(), control.remainingNanos(System.nanoTime()),
                            System.nanoTime());
                }
                List<ConsoleLine> consoleNow = List.copyOf(console);
                Credit pass = replies.handOver(h.credit()); // travels with the sub-chain, comes home through its return
                if (replies.abandoned()) {
                    continuations.forget(number);
                    return;
                }
                ChainHeader nh = h.onward(new ChainSoFar(start.hop(), path, consoleNow, timings, metadata),
                        sub.serviceFunction(), sub.chainingFunction(), pass,
                        start.budgetNanos()).with(sub.chainingFunction(), stack);
                handOn(h, sub.server(), null, new ChainRequest(nh, sub.params(), sub.state(), null), path, consoleNow,
                        timings, pass, control, () -> continuations.forget(number));
            }
            case NextHopDecision.ReturnToCreator back when back.to().composed() -> {
                // composed (paper 3.4, Fig. 5c): the parent's chaining function runs here, on this hop's
                // thread, credit and control, as if the return had arrived: no crossing back to its creator
                ChainHeader nh = h.onward(new ChainSoFar(h.hop(), path, List.copyOf(console), timings, h.metadata()),
                        RETURN, ChainingFunctionSource.NONE, h.credit(), back.budgetNanos());
                run(new ChainRequest(nh, back.result(), ChainState.empty(), null), control, System.nanoTime(), replies,
                        h.serviceFunction(), null);
            }
            case NextHopDecision.ReturnToCreator back -> { // to the parked hop, or a branch's outcome to its merge host
                List<ConsoleLine> consoleNow = List.copyOf(console);
                Credit pass = replies.handOver(h.credit());
                if (replies.abandoned()) {
                    return;
                }
                ChainHeader nh = h.onward(new ChainSoFar(h.hop(), path, consoleNow, timings, h.metadata()),
                        back.to().isMerge() ? MergePoints.OUTCOME
                        : RETURN, ChainingFunctionSource.NONE, pass, back.budgetNanos());
                handOn(h, back.to().node().node(), node.addressOf(back.to().node()),
                        new ChainRequest(nh, back.result(), ChainState.empty(), null), path, consoleNow, timings, pass,
                        control, () -> { });
            }
            case NextHopDecision.StartSplit split -> split(split, h, path, console, timings, replies, control, context);
            case NextHopDecision.Fail fail -> throw fail.failure();
            case NextHopDecision.RunChainingFunction run ->
                    throw new IllegalStateException("a next hop cannot ask to run a chaining function: " + run);
        }
    }

    /**
     * Splits the chain of hop {@code h} (paper 3.10): sends each branch's first hop and the split's
     * opening to its merge host (here, if it names none), dividing the hop's credit among them.
     */
    private void split(NextHopDecision.StartSplit split, ChainHeader h, List<String> path, List<ConsoleLine> console,
                       List<HopTiming> timings, HopReplies replies, HopControl control, HopContext context) {
        String mergeServer = split.split().mergeServer();
        NodeAddress self = new NodeAddress(node.name(), node.transport().advertisedHost(), node.transport().port());
        NodeAddress mergeHost = self;
        if (mergeServer != null && !mergeServer.equals(node.name())) {
            InetSocketAddress at = node.settings().resolver().resolve(mergeServer).orElseThrow(() ->
                    new HopFailure(ErrorCode.UNKNOWN_SERVER, "no address for merge host '" + mergeServer
                            + "' of the split after hop " + h.hop() + " (name resolver: " + node.settings().resolver()
                            + ")"));
            mergeHost = new NodeAddress(mergeServer, at.getHostString(), at.getPort());
        }
        List<Metadata> metadata = new ArrayList<>();
        for (NextHop.Call call : split.split().branches()) {
            metadata.add(interceptForward(context, call));
        }
        List<ConsoleLine> consoleNow = List.copyOf(console);
        Credit pass = replies.handOver(h.credit());
        if (replies.abandoned()) {
            return;
        }
        for (MergePoints.Send send : MergePoints.split(split, h, mergeHost, node.addressOf(mergeHost), path, consoleNow,
                timings, pass, metadata)) {
            if (send.opening() && mergeHost == self) {
                mergeArrived(send.request(), send.credit(), control);
            } else {
                // a branch that cannot be reached fails as a branch: its failure goes to the merge host
                ChainHeader reportAs = send.opening() ? h : send.request().header();
                handOn(reportAs, send.server(), send.address(), send.request(), path, consoleNow, timings,
                        send.credit(), control, () -> { });
            }
        }
    }

    /**
     * A split's opening or a branch's outcome arrived here, the split's merge host: its credit goes
     * to the split (this request's hop ends here); when the split is complete, the merge runs as a
     * hop of its own, on the node's executor.
     */
    private void mergeArrived(ChainRequest request, HopControl control, HopReplies replies) {
        Credit credit = replies.handOver(request.header().credit());
        if (!control.isCancelled() && !replies.abandoned()) {
            mergeArrived(request, credit, control);
        }
    }

    private void mergeArrived(ChainRequest request, Credit credit, HopControl control) {
        switch (merges.arrive(request, credit, System.nanoTime())) {
            case MergePoints.Waiting waiting -> { }
            case MergePoints.Ready ready -> onRequest(ready.request(), System.nanoTime());
            case MergePoints.FirstFailure f -> {
                if (!control.isCancelled()) {
                    reports.passOn(f.header(), f.code(), f.failure(), f.header().credit());
                }
            }
        }
    }

    /**
     * Takes the chain parked here that the sub-chain returning in {@code h} returns to (the innermost
     * point of its return stack), or fails the chain with a typed error naming this node.
     */
    private Continuations.Parked resume(ChainHeader h) {
        List<ReturnPoint> stack = h.returnStack();
        Continuations.Parked parked = parkedFor(h);
        if (parked == null) {
            throw new HopFailure(ErrorCode.SUB_CHAIN, "the sub-chain that ended at hop " + h.hop() + " returned to '"
                    + node.name() + "', which no longer holds the chain it started it from (continuation "
                    + stack.getLast().continuation() + "): a parked chain is kept for its deadline plus "
                    + TimeUnit.NANOSECONDS.toSeconds(ChainTrails.GRACE_NANOS) + " s, until it is cancelled, and "
                    + "while the server runs; give the chain a later deadline");
        }
        return parked;
    }

    /**
     * Takes the chain parked here that the request {@code h} returns to (the innermost point of its
     * return stack), or {@code null} if it is no longer here; fails if that point is not this node.
     */
    private Continuations.Parked parkedFor(ChainHeader h) {
        List<ReturnPoint> stack = h.returnStack();
        if (stack.isEmpty() || !stack.getLast().node().node().equals(node.name())) {
            throw new HopFailure(ErrorCode.SUB_CHAIN, "a sub-chain returned to node '" + node.name() + "' after hop "
                    + h.hop() + ", but its return stack " + (stack.isEmpty() ? "is empty"
                    : "names '" + stack.getLast().node().node() + "'") + ": the node that sent it is faulty");
        }
        return continuations.resume(stack.getLast().continuation(), h, System.nanoTime());
    }

    /** What the service function returned, and how long it took. */
    private record ServiceRun(Object result, HopTiming timing) {
    }

    private ServiceRun runService(ChainHeader h, ChainRequest request, List<ConsoleLine> console,
                                  HopReplies replies, HopControl control, String chainId, long arrivedNanos,
                                  HopOutcomes.Outcome recording) {
        ServiceFunction sf = services.get(h.serviceFunction());
        if (sf == null) {
            throw new HopFailure(ErrorCode.UNKNOWN_SERVICE_FUNCTION, "server '" + node.name()
                    + "' has no service function '" + h.serviceFunction() + "' (it has: "
                    + new TreeSet<>(services.keySet()) + ")");
        }
        long sfStart = System.nanoTime();
        Object result;
        VirtualConsole sfConsole = new VirtualConsole(h.hop(), node.name(), "service:" + h.serviceFunction(), console);
        HopContext sfContext = new HopContext(chainId, h.origin(), h.hop(), node.name(), sfConsole, replies,
                h.metadata(), h.branch(), control);
        ServiceFunction unlessCancelled = params -> {
            if (control.isCancelled()) { // marked cancelled here since the hop was taken up: the function never starts
                throw new HopFailure(ErrorCode.CANCELLED, "chain " + chainId + " was cancelled before service function '"
                        + h.serviceFunction() + "' started at '" + node.name() + "'");
            }
            return sf.apply(params);
        };
        try (var scope = sfContext.push(); var working = control.enter()) {
            result = interceptService(sfContext, h.serviceFunction(), unlessCancelled).apply(request.params());
        } catch (HopRejectedException r) {
            throw recorded(recording, control, rejected(r));
        } catch (Throwable e) {
            HopFailure unsent = replies.replyUnsent(e, h.serviceFunction());
            if (unsent != null) { // not kept: the hop did not complete, a retry runs it again
                throw unsent;
            }
            throw recorded(recording, control, new HopFailure(ErrorCode.SERVICE_FUNCTION_FAILED, e.getClass().getName(),
                    "service function '" + h.serviceFunction() + "' threw " + e, FunctionRuntime.stackTrace(e), e));
        }
        long sfEnd = System.nanoTime();
        return new ServiceRun(result, new HopTiming(h.hop(), node.name(), h.serviceFunction(), sfStart - arrivedNanos,
                sfEnd - sfStart, 0, 0, node.name()));
    }

    /** {@code f}, the failure of a service function, recorded in {@code recording} (if any) unless the hop was cancelled. */
    private static HopFailure recorded(HopOutcomes.Outcome recording, HopControl control, HopFailure f) {
        if (recording != null && !control.isCancelled()) {
            recording.failed(f);
        }
        return f;
    }

    /** Hands the chaining function, with the service function's result, to the chaining proxy. */
    private void delegate(ChainHeader h, List<String> path, List<ConsoleLine> console,
                          List<HopTiming> timings, HopTiming timing, ChainState state, Object result,
                          HopReplies replies, HopControl control) {
        timings.add(timing.withChaining(0, 0, chainingProxy));
        List<ConsoleLine> consoleNow = List.copyOf(console);
        Credit pass = replies.handOver(h.credit());
        if (replies.abandoned()) {
            return;
        }
        ChainHeader ph = h.onward(new ChainSoFar(h.hop(), path, consoleNow, timings, h.metadata()), CHAIN_AT_PROXY,
                h.chainingFunction(), pass, decisions.budgetForNext(control.remainingNanos(System.nanoTime())));
        CompletableFuture<Void> sent = send(chainingProxy, null, new ChainRequest(ph, result, state, null), control);
        handOffs.track(sent.exceptionallyCompose(e -> {
            if (control.isCancelled()) {
                return CompletableFuture.completedFuture(null);
            }
            Throwable cause = Node.unwrap(e);
            HopFailure f = cause instanceof HopFailure hf ? hf
                    : new HopFailure(ErrorCode.HOP_UNREACHABLE, "cannot reach chaining proxy '" + chainingProxy
                    + "': " + cause, cause);
            return reports.sendFailure(h, f, path, consoleNow, timings, pass);
        }));
    }

    /** {@code sf} inside the interceptors. */
    private ServiceFunction interceptService(HopContext context, String name, ServiceFunction sf) {
        ServiceFunction call = sf;
        for (ServerInterceptor interceptor : interceptors.reversed()) {
            ServiceFunction inner = call;
            call = params -> interceptor.interceptService(context, name, params, inner);
        }
        return call;
    }

    /**
     * Runs {@code cf} inside the interceptors. Failures of the chaining function itself pass as they
     * are; an interceptor's own exception becomes a failure naming it. If the sandbox abandoned the
     * function (the hop has failed already), the hop stops here even if an interceptor swallowed that.
     */
    private NextHop interceptChaining(HopContext context, ChainState state, Object result,
                                      ChainingFunction cf) {
        if (interceptors.isEmpty()) {
            return call(cf, state, result);
        }
        InvocationAbandoned[] abandoned = new InvocationAbandoned[1];
        ChainingFunction call = (s, r) -> {
            try {
                return call(cf, s, r);
            } catch (InvocationAbandoned a) {
                abandoned[0] = a;
                throw a;
            }
        };
        for (ServerInterceptor interceptor : interceptors.reversed()) {
            ChainingFunction inner = call;
            call = (s, r) -> interceptor.interceptChaining(context, s, r, inner);
        }
        NextHop next;
        try {
            next = call.apply(state, result);
        } catch (HopFailure | InvocationAbandoned passed) {
            throw passed;
        } catch (HopRejectedException r) {
            throw rejected(r);
        } catch (Exception e) {
            throw interceptorFailed("around the chaining function", e);
        }
        if (abandoned[0] != null) {
            throw abandoned[0];
        }
        if (next == null) {
            throw new HopFailure(ErrorCode.INTERNAL, "a server interceptor at '" + node.name()
                    + "' returned no next hop from interceptChaining");
        }
        return next;
    }

    /** The runtime's invocation of a chaining function throws only unchecked exceptions. */
    private static NextHop call(ChainingFunction cf, ChainState state, Object result) {
        try {
            return cf.apply(state, result);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // unreachable: FunctionRuntime.invoke throws no checked exception
        }
    }

    /** The metadata for the hop after this one, as the interceptors make it. */
    private Metadata interceptForward(HopContext context, NextHop.Call call) {
        Metadata metadata = context.metadata();
        try (var scope = context.push()) {
            for (ServerInterceptor interceptor : interceptors) {
                metadata = Objects.requireNonNull(interceptor.interceptForward(context, call, metadata),
                        "interceptForward returned null metadata");
            }
        } catch (HopRejectedException r) {
            throw rejected(r);
        } catch (RuntimeException e) {
            throw interceptorFailed("before forwarding to '" + call.server() + "'", e);
        }
        return metadata;
    }

    private static HopFailure rejected(HopRejectedException r) {
        return new HopFailure(ErrorCode.HOP_REJECTED, r.remoteMessage(), r);
    }

    private HopFailure interceptorFailed(String where, Exception e) {
        return new HopFailure(ErrorCode.INTERNAL, e.getClass().getName(), "a server interceptor at '" + node.name()
                + "' failed " + where + ": " + e, FunctionRuntime.stackTrace(e), e);
    }

    /**
     * Sends {@code next}, the chain of hop {@code h} carrying {@code pass} of its credit, to
     * {@code server} (at {@code address}, or where the resolver says if {@code null}); if it cannot
     * be sent, runs {@code unsent} and reports the hop as failed with that credit, unless the chain
     * was cancelled.
     */
    private void handOn(ChainHeader h, String server, InetSocketAddress address, ChainRequest next,
                        List<String> path, List<ConsoleLine> consoleNow, List<HopTiming> timings, Credit pass,
                        HopControl control, Runnable unsent) {
        CompletableFuture<Void> sent = send(server, address, next, control);
        handOffs.track(sent.exceptionallyCompose(e -> {
            unsent.run();
            if (control.isCancelled()) {
                return CompletableFuture.completedFuture(null);
            }
            // the request and its credit never left: report, with that credit
            Throwable cause = Node.unwrap(e);
            HopFailure f = cause instanceof HopFailure hf ? hf
                    : new HopFailure(ErrorCode.HOP_UNREACHABLE, "cannot reach '" + server + "': " + cause, cause);
            return reports.sendFailure(h, f, path, consoleNow, timings, pass);
        }));
    }

    /**
     * Sends the chain of {@code request} on to {@code server} (at {@code address}, or where the
     * resolver says if {@code null}), remembering where it went (its trail, for a cancel to follow);
     * fails with a {@link HopFailure} if the chain was cancelled here, or as {@link Node#forward} does.
     * The request leaves with the time-to-heartbeat left to the hop that {@code control} controls,
     * less the network allowance (paper 3.9).
     */
    private CompletableFuture<Void> send(String server, InetSocketAddress address, ChainRequest request,
                                         HopControl control) {
        ChainHeader h = request.header();
        if (h.heartbeat().isOn()) {
            h = h.withHeartbeat(control.heartbeatForNext(System.nanoTime(), node.heartbeatAllowanceNanos()));
            request = new ChainRequest(h, request.params(), request.state(), request.decodeError());
        }
        if (!trails.forwarding(h, server, System.nanoTime())) {
            return CompletableFuture.failedFuture(new HopFailure(ErrorCode.CANCELLED, "chain " + h.origin() + "#"
                    + h.chainId() + " was cancelled; not calling '" + h.serviceFunction() + "' at '" + server + "'"));
        }
        CompletableFuture<Void> sent = address == null ? node.forward(server, request)
                : node.forward(server, address, request);
        if (h.heartbeat().isOn()) {
            running.handingOn(h, control, sent);
        }
        return sent;
    }
}
