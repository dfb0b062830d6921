package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.transport.OutboundStream;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.transport.ChainCredentials;
import io.rpcc.core.internal.wire.ChainCredential;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.server.HopOutcome;
import io.rpcc.server.ServerInterceptor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Carries out what {@link NextHopDecision} made of a hop's outcome (paper Fig. 3, step 7): the
 * chain's result to its originator, the next hop, a sub-chain started (its parent parked in
 * {@link Continuations}, its replies relayed by {@link ReplyRelays}), a sub-chain's result back to
 * its creator or a branch's to its merge host, a split (its branches and its opening, see
 * {@link MergePoints}); or, for a server with a chaining proxy, the hop's result to that proxy.
 * Each request leaves with the hop's credit (exactly one hand-over per hop, {@link HopReplies}),
 * its trail remembered in {@link ChainTrails} for a cancel to follow; a request that cannot be sent
 * fails the hop with that credit.
 */
final class NextHopSender {
    private final Node node;
    private final ChainTrails trails;
    private final RunningHops running;
    private final HandOffs handOffs;
    private final HopReports reports;
    private final Continuations continuations;
    private final ReplyRelays relays;
    private final MergeArrival merges;
    private final HopInterceptors interceptors;
    private final NextHopDecision decisions;
    private final HopSettings settings;
    private final AtomicHops atomic;

    /**
     * Sends for {@code node}'s hops, with the tables they use and {@code settings}; tells
     * {@code atomic} where an atomic chain's requests go (the participant's peers).
     */
    NextHopSender(Node node, HopTables tables, MergeArrival merges, HopInterceptors interceptors,
                  HopSettings settings, AtomicHops atomic) {
        this.node = node;
        this.atomic = atomic;
        this.trails = tables.trails();
        this.running = tables.running();
        this.handOffs = tables.handOffs();
        this.reports = tables.reports();
        this.continuations = tables.continuations();
        this.relays = tables.relays();
        this.merges = merges;
        this.interceptors = interceptors;
        this.decisions = NextHopDecision.of(node);
        this.settings = settings;
    }

    /**
     * Carries out {@code action} for {@code hop}; {@code state} is the state of the hop's chaining
     * function (parked if a sub-chain starts), {@code context} the one the interceptors see. Returns
     * the composed return to run next on this hop's thread, credit and control (paper 3.4, Fig. 5c:
     * the parent's chaining function runs here, with no crossing back to its creator), or {@code null}.
     */
    SubChainReturn.Composed carryOut(NextHopDecision.Action action, HopState hop, ChainState state,
                                     HopContext context) {
        ChainHeader h = hop.header();
        HopReplies replies = hop.replies();
        HopControl control = hop.control();
        // an atomic hop's vote: the chain's result takes it along (see HopReports); a vote to the originator
        // follows the request to the next hop, which is on the chain's critical path (the vote's slice of the
        // credit keeps the chain from ending before it arrives); any other leaves before the chain goes on
        HopReplies.HeldVote voteAfterForward = null;
        if (!(action instanceof NextHopDecision.Finish)) {
            HopReplies.HeldVote vote = replies.takeHeldVote();
            if (vote != null && action instanceof NextHopDecision.Forward && vote.peer().equals(h.originator().node())) {
                voteAfterForward = vote;
            } else {
                AtomicHops.sendVote(node, vote);
            }
        }
        OutboundStream data = hop.running().takeOutput();
        if (data != null && !(action instanceof NextHopDecision.Forward) && !(action instanceof NextHopDecision.Fail)) {
            data.discard("the chain did not go on to a next hop");
            throw new HopFailure(ChainErrorCode.SERVICE_FUNCTION_FAILED, "service function '" + h.serviceFunction()
                    + "' at '" + node.name() + "' (hop " + h.hop() + ") returned a StreamedResult, but its chaining "
                    + "function " + switch (action) {
                        case NextHopDecision.Finish f -> "ended the chain";
                        case NextHopDecision.StartSubChain sc -> "started a sub-chain";
                        case NextHopDecision.StartSplit sp -> "split the chain";
                        default -> "returned to a sub-chain's creator";
                    } + ": only a next hop takes a data stream; return a plain result, or call a next hop");
        }
        if (data != null && action instanceof NextHopDecision.Fail) {
            data.discard("the hop failed");
        }
        switch (action) {
            case NextHopDecision.Finish finish -> {
                Credit pass = replies.handOver(h.credit());
                if (!replies.abandoned()) { // (abandoned: the closing node reported the hop, with its credit)
                    reports.sendResult(hop, finish.result(), pass);
                }
            }
            case NextHopDecision.Forward onward -> {
                try {
                    Metadata metadata = interceptors.forward(context, onward.call());
                    List<ConsoleLine> consoleNow = hop.consoleNow();
                    Credit pass = replies.handOver(h.credit());
                    if (replies.abandoned()) { // (the closing node reported the hop; the vote's slice goes home below)
                        if (data != null) {
                            data.discard("the node closed");
                        }
                        return null;
                    }
                    ChainHeader nh = h.onward(new ChainSoFar(onward.hop(), hop.path(), consoleNow, hop.timings(), metadata),
                            onward.serviceFunction(), onward.chainingFunction(), pass, onward.budgetNanos());
                    hop.watch().went(new HopOutcome.Forwarded(onward.server(), onward.serviceFunction()));
                    handOn(hop, h, onward.server(), null, new ChainRequest(nh, onward.params(), onward.state(), null, 0,
                            null, data), pass, () -> { });
                } finally {
                    // the held vote goes home however the forward ends, a forward interceptor's refusal included:
                    // it carries a slice of the chain's credit, without which the chain could not end
                    AtomicHops.sendVote(node, voteAfterForward);
                }
            }
            case NextHopDecision.StartSubChain start -> startSubChain(start, hop, state, context);
            case NextHopDecision.ReturnToCreator back when back.to().composed() -> {
                Metadata metadata = interceptors.handBack(context, ServerInterceptor.HandBack.SUB_CHAIN_RESULT);
                hop.watch().went(new HopOutcome.Returned(back.to().node().node(), true));
                return new SubChainReturn.Composed(hop, back, metadata);
            }
            case NextHopDecision.ReturnToCreator back -> { // to the parked hop, or a branch's outcome to its merge host
                Metadata metadata = back.to().isMerge() ? h.metadata()
                        : interceptors.handBack(context, ServerInterceptor.HandBack.SUB_CHAIN_RESULT);
                List<ConsoleLine> consoleNow = hop.consoleNow();
                Credit pass = replies.handOver(h.credit());
                if (replies.abandoned()) {
                    return null;
                }
                HopKind to = back.to().isMerge() ? HopKind.BRANCH_OUTCOME : HopKind.RETURN;
                hop.watch().went(back.to().isMerge() ? new HopOutcome.BranchEnded(back.to().node().node())
                        : new HopOutcome.Returned(back.to().node().node(), false));
                ChainHeader nh = h.onward(new ChainSoFar(h.hop(), hop.path(), consoleNow, hop.timings(), metadata), to.wireName(), ChainingFunctionSource.NONE, pass, back.budgetNanos());
                handOn(hop, h, back.to().node().node(), node.addressOf(back.to().node()),
                        new ChainRequest(nh, back.result(), ChainState.empty(), null), pass, () -> { });
            }
            case NextHopDecision.StartSplit split -> split(split, hop, context);
            case NextHopDecision.Fail fail -> throw fail.failure();
            case NextHopDecision.RunChainingFunction run ->
                    throw new IllegalStateException("a next hop cannot ask to run a chaining function: " + run);
        }
        return null;
    }

    /**
     * Starts the sub-chain {@code start} of {@code hop}, whose chaining function has {@code state}:
     * parks the hop here unless the sub-chain is composed (and has no failure handler), and opens
     * the relay of its replies if they come here.
     */
    private void startSubChain(NextHopDecision.StartSubChain start, HopState hop, ChainState state,
                               HopContext context) {
        ChainHeader h = hop.header();
        HopControl control = hop.control();
        SubChain sub = start.subChain();
        Metadata metadata = interceptors.forward(context, sub.firstHop());
        NodeAddress self = new NodeAddress(node.name(), node.transport().advertisedHost(), node.transport().port());
        boolean composed = sub.composition().orElse(settings.composesSubChains());
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
        List<ConsoleLine> consoleNow = hop.consoleNow();
        Credit pass = hop.replies().handOver(h.credit()); // travels with the sub-chain, comes home through its return
        if (hop.replies().abandoned()) {
            continuations.forget(number);
            return;
        }
        ChainHeader nh = h.onward(new ChainSoFar(start.hop(), hop.path(), consoleNow, hop.timings(), metadata), sub.serviceFunction(), sub.chainingFunction(), pass, start.budgetNanos()).with(sub.chainingFunction(), stack);
        ChainCredentials credentials = node.transport().credentials();
        if (credentials != null) { // with TLS: the sub-chain carries this creator's signature in its return point
            stack.set(stack.size() - 1, point.withCreatorCredential(credentials.sign(nh, self,
                    new ChainCredential.FirstHop(start.hop(), sub.server(), sub.serviceFunction()))));
            nh = nh.with(sub.chainingFunction(), stack);
        }
        hop.watch().went(new HopOutcome.SubChainStarted(sub.server(), sub.serviceFunction()));
        handOn(hop, h, sub.server(), null, new ChainRequest(nh, sub.params(), sub.state(), null), pass,
                () -> continuations.forget(number));
    }

    /**
     * Splits the chain of {@code hop} (paper 3.10): sends each branch's first hop and the split's
     * opening to its merge host (here, if it names none), dividing the hop's credit among them.
     */
    private void split(NextHopDecision.StartSplit split, HopState hop, HopContext context) {
        ChainHeader h = hop.header();
        String mergeServer = split.split().mergeServer();
        NodeAddress self = new NodeAddress(node.name(), node.transport().advertisedHost(), node.transport().port());
        NodeAddress mergeHost = self;
        if (mergeServer != null && !mergeServer.equals(node.name())) {
            InetSocketAddress at = node.settings().resolver().resolve(mergeServer).orElseThrow(() ->
                    new HopFailure(ChainErrorCode.UNKNOWN_SERVER, "no address for merge host '" + mergeServer
                            + "' of the split after hop " + h.hop() + " (name resolver: " + node.settings().resolver()
                            + ")"));
            mergeHost = new NodeAddress(mergeServer, at.getHostString(), at.getPort());
        }
        List<Metadata> metadata = new ArrayList<>(); // the opening's, then each branch's
        metadata.add(interceptors.handBack(context, ServerInterceptor.HandBack.SPLIT_OPENING));
        for (NextHop.Call call : split.split().branches()) {
            metadata.add(interceptors.forward(context, call));
        }
        List<ConsoleLine> consoleNow = hop.consoleNow();
        Credit pass = hop.replies().handOver(h.credit());
        if (hop.replies().abandoned()) {
            return;
        }
        hop.watch().went(new HopOutcome.Split(split.split().branches().stream().map(NextHop.Call::server).toList(),
                mergeHost.node()));
        for (MergePoints.Send send : MergePoints.split(split, hop, consoleNow, mergeHost, node.addressOf(mergeHost),
                pass, metadata)) {
            if (send.opening() && mergeHost == self) {
                merges.arrived(send.request(), send.credit(), hop.control());
            } else {
                // a branch that cannot be reached fails as a branch: its failure goes to the merge host
                ChainHeader reportAs = send.opening() ? h : send.request().header();
                handOn(hop, reportAs, send.server(), send.address(), send.request(), send.credit(), () -> { });
            }
        }
    }

    /**
     * Hands the chaining function of {@code r}'s hop, with the service function's result, to the
     * server's chaining proxy (paper 7.3).
     */
    void delegate(HopResult r) {
        HopState hop = r.hop();
        ChainHeader h = hop.header();
        HopControl control = hop.control();
        String proxy = settings.proxy().node();
        hop.addTiming(r.timing().withChaining(0, 0, proxy));
        List<ConsoleLine> consoleNow = hop.consoleNow();
        Credit pass = hop.replies().handOver(h.credit());
        if (hop.replies().abandoned()) {
            return;
        }
        ChainHeader ph = h.onward(new ChainSoFar(h.hop(), hop.path(), consoleNow, hop.timings(), h.metadata()), HopKind.PROXY.wireName(), h.chainingFunction(), pass, decisions.budgetForNext(control.remainingNanos(System.nanoTime())));
        hop.watch().went(new HopOutcome.Delegated(proxy));
        CompletableFuture<Void> sent = send(proxy, null, new ChainRequest(ph, r.result(), r.state(), null), control,
                hop.watch());
        hop.watch().track(handOffs.track(sent.exceptionallyCompose(e -> {
            if (control.isCancelled()) {
                hop.watch().cancelled();
                return CompletableFuture.completedFuture(null);
            }
            Throwable cause = Node.unwrap(e);
            HopFailure f = cause instanceof HopFailure hf ? hf
                    : new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "cannot reach chaining proxy '" + proxy
                    + "': " + cause, cause);
            return reports.hopFailed(hop, h, f, consoleNow, hop.timings(), pass);
        })));
    }

    /**
     * Sends {@code next}, carrying {@code pass} of the credit of {@code hop}, to {@code server} (at
     * {@code address}, or where the resolver says if {@code null}); if it cannot be sent, runs
     * {@code unsent} and reports the hop of {@code reportAs} as failed with that credit (and the
     * console {@code next} carries), unless the chain was cancelled.
     */
    private void handOn(HopState hop, ChainHeader reportAs, String server, InetSocketAddress address,
                        ChainRequest next, Credit pass, Runnable unsent) {
        HopControl control = hop.control();
        CompletableFuture<Void> sent = send(server, address, next, control, hop.watch());
        boolean own = reportAs == hop.header(); // else a branch of a split, which fails as a branch
        hop.watch().track(handOffs.track(sent.exceptionallyCompose(e -> {
            unsent.run();
            if (control.isCancelled()) {
                hop.watch().cancelled();
                return CompletableFuture.completedFuture(null);
            }
            // the request and its credit never left: report, with that credit
            Throwable cause = Node.unwrap(e);
            HopFailure f = cause instanceof HopFailure hf ? hf
                    : new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "cannot reach '" + server + "': " + cause, cause);
            return own ? reports.hopFailed(hop, reportAs, f, next.header().console(), hop.timings(), pass)
                    : reports.sendFailure(reportAs, f, hop.path(), next.header().console(), hop.timings(), pass);
        })));
    }

    /**
     * Sends the chain of {@code request} on to {@code server} (at {@code address}, or where the
     * resolver says if {@code null}), remembering where it went (its trail, for a cancel to follow);
     * fails with a {@link HopFailure} if the chain was cancelled here, or as {@link io.rpcc.core.internal.chain.HopRouter#forward(String, ChainRequest)} does.
     * The request leaves with the time-to-heartbeat left to the hop that {@code control} controls,
     * less the network allowance (paper 3.9); its failovers are told to {@code watch}.
     */
    private CompletableFuture<Void> send(String server, InetSocketAddress address, ChainRequest request,
                                         HopControl control, HopWatch watch) {
        ChainHeader h = request.header();
        if (h.heartbeat().isOn()) {
            h = h.withHeartbeat(control.heartbeatForNext(System.nanoTime(), node.heartbeatAllowanceNanos()));
            request = request.withHeader(h);
        }
        if (!trails.forwarding(h, server, System.nanoTime())) {
            return CompletableFuture.failedFuture(new HopFailure(ChainErrorCode.CANCELLED, "chain " + h.origin() + "#"
                    + h.chainId() + " was cancelled; not calling '" + h.serviceFunction() + "' at '" + server + "'"));
        }
        if (h.tx() != null) {
            atomic.forwarded(h, server); // a peer of this participant, for cooperative termination
        }
        CompletableFuture<Void> sent = address == null ? node.router().forward(server, request, watch.failovers())
                : node.router().forward(server, address, request);
        if (request.stream() instanceof OutboundStream data) { // not sent: its source is closed
            sent.whenComplete((v, e) -> {
                if (e != null) {
                    data.discard("its request to '" + server + "' was not sent: " + e);
                }
            });
        }
        if (h.heartbeat().isOn()) {
            running.handingOn(h, control, sent);
        }
        return sent;
    }
}
