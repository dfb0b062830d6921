package io.rpcc.server.internal;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopTiming;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RethrownBranchFailure;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.CarriedTimings;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.List;

/**
 * The second half of a hop (paper Fig. 3, steps 5 to 7), after the handler of its kind: what
 * {@link NextHopDecision} makes of the value the hop has (a result that is a sub-chain, a reply, a
 * return to a creator needs no chaining function), else the chaining function, at the chaining
 * proxy if the server has one, or here: replayed if it ran here on this hop before, or loaded and
 * run inside the interceptors (the sandbox's watchdog failing the hop at once if it abandons the
 * function); then {@link NextHopSender} carries out the decision.
 */
final class HopChaining {
    private final Node node;
    private final NextHopDecision decisions;
    private final HopInterceptors interceptors;
    private final NextHopSender sender;
    private final HopReports reports;
    private final boolean hasProxy;

    /** The chaining step of {@code node}'s hops; {@code hasProxy} if its chaining functions run at a proxy. */
    HopChaining(Node node, HopInterceptors interceptors, NextHopSender sender, HopReports reports, boolean hasProxy) {
        this.node = node;
        this.decisions = NextHopDecision.of(node);
        this.interceptors = interceptors;
        this.sender = sender;
        this.reports = reports;
        this.hasProxy = hasProxy;
    }

    /**
     * Goes on from {@code r}: returns the composed return to run next on this hop's thread (see
     * {@link NextHopSender#carryOut}), or {@code null}.
     */
    SubChainReturn.Composed run(HopResult r) {
        HopState hop = r.hop();
        ChainHeader h = hop.header();
        HopControl control = hop.control();
        boolean proxied = hop.kind() == HopKind.PROXY;
        boolean merging = hop.kind() == HopKind.MERGED;
        ChainingFunctionSource cf = h.chainingFunction();
        if (!proxied) {
            NextHopDecision.Action outcome = decisions.afterService(r.result(), h.hop(), h.maxHops(), cf,
                    control.remainingNanos(System.nanoTime()), h.returnStack());
            if (!(outcome instanceof NextHopDecision.RunChainingFunction)) {
                hop.addTiming(r.timing());
                return sender.carryOut(outcome, hop, r.state(), hop.context(node.name(), "service:" + h.serviceFunction()));
            }
            if (hasProxy && !merging) {
                sender.delegate(r);
                return null;
            }
        }
        NextHop replayed = r.replaying() ? r.cached().next() : null;
        if (replayed != null) { // the chaining function ran here on this hop before: its decision stands
            hop.addTiming(r.timing());
            return sender.carryOut(decisions.decide(replayed, h.hop(), h.maxHops(), cf,
                    control.remainingNanos(System.nanoTime()), h.returnStack()), hop, r.state(),
                    hop.context(node.name(), "chaining"));
        }
        FunctionRuntime.Loaded loaded = node.functions().load(cf, hop.running().peer(), hop.running().asker().isolation());
        long cfStart = System.nanoTime();
        NextHop next;
        HopContext cfContext = hop.context(node.name(), "chaining");
        HopTiming serviceTiming = r.timing();
        try (var scope = cfContext.push()) {
            // if the sandbox abandons a function stuck in a JDK call, the hop fails from the watchdog at once
            // (with the timings rebuilt from the header: this hop's list belongs to the stuck thread)
            next = interceptors.aroundChaining(cfContext, r.state(), r.result(), (st, value) ->
                    node.functions().invoke(loaded.function(), st, value, failure -> {
                        if (control.isCancelled()) { // the originator has ended the chain: nothing to report
                            hop.replies().handOver(h.credit());
                            return;
                        }
                        List<HopTiming> at = CarriedTimings.continuing(h.timings());
                        if (proxied || merging) {
                            at.removeLast();
                        }
                        at.add(serviceTiming.withChaining(loaded.loadNanos(), System.nanoTime() - cfStart,
                                node.name()));
                        reports.hopFailed(hop, h, failure, hop.consoleNow(), at,
                                hop.replies().handOver(h.credit()));
                    }));
        } catch (HopFailure f) {
            // a merge giving up on a failed branch: the chain fails with that branch's failure
            throw merging ? RethrownBranchFailure.of(f, r.result(), node.name(), h.hop()) : f;
        } finally {
            hop.addTiming(r.timing().withChaining(loaded.loadNanos(), System.nanoTime() - cfStart, node.name()));
        }
        if (control.isCancelled()) {
            hop.replies().handOver(h.credit()); // no further hop starts
            return null;
        }
        if (r.cached() != null && !r.replaying() && hop.kind().isHopOfItsOwn()) {
            r.cached().chained(next);
        }
        return sender.carryOut(decisions.decide(next, h.hop(), h.maxHops(), cf,
                control.remainingNanos(System.nanoTime()), h.returnStack()), hop, r.state(), cfContext);
    }
}
