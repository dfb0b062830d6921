package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.HopTiming;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.StreamedResult;
import io.rpcc.core.internal.transport.OutboundStream;
import io.rpcc.core.internal.wire.RequestStream;
import java.io.InputStream;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The handler of a hop ({@link HopKind#SERVICE}, paper Fig. 3, steps 3 and 4): a hop that arrives
 * past the chain's deadline fails without running; a hop whose outcome is kept here from its first
 * run (a chain sent again, paper 3.9) replays it; else the service function runs, inside the
 * interceptors, and its outcome is recorded for a replay.
 */
final class ServiceHop {
    private final String nodeName;
    private final Map<String, ServiceFunction> services;
    private final HopInterceptors interceptors;
    private final AtomicHops atomic;

    /** The hops of {@code services} at node {@code nodeName}; those of atomic chains run in {@code atomic}'s transactions. */
    ServiceHop(String nodeName, Map<String, ServiceFunction> services, HopInterceptors interceptors, AtomicHops atomic) {
        this.nodeName = nodeName;
        this.services = Map.copyOf(services);
        this.interceptors = interceptors;
        this.atomic = atomic;
    }

    /**
     * Runs {@code hop}, of {@code request} (arrived at {@code arrivedNanos}), recording its outcome
     * in, or replaying it from, {@code cached} (if not {@code null}); {@code null} if the chain was
     * cancelled while its service function ran.
     */
    HopResult run(HopState hop, ChainRequest request, long arrivedNanos, HopOutcomes.Outcome cached) {
        ChainHeader h = hop.header();
        long left = hop.control().remainingNanos(System.nanoTime());
        if (left <= 0) {
            throw new HopFailure(ChainErrorCode.DEADLINE_EXCEEDED, "hop " + h.hop() + " ('" + h.serviceFunction()
                    + "' at '" + nodeName + "') started " + TimeUnit.NANOSECONDS.toMillis(-left)
                    + " ms after the chain's deadline, so its service function did not run; give the chain a "
                    + "later deadline (ChainCall.deadline or timeout) or make the hops before it faster");
        }
        if (cached != null && cached.replays()) { // the chain was sent again; this hop's service function ran here
            hop.replies().resend(cached.replies()); // those an earlier attempt lost arrive now; the others are dropped
            HopTiming timing = new HopTiming(h.hop(), nodeName, h.serviceFunction(), System.nanoTime() - arrivedNanos,
                    0, 0, 0, nodeName);
            return new HopResult(hop, request.state(), cached.result(), timing, cached);
        }
        HopResult ran = runService(hop, request, arrivedNanos, cached);
        if (hop.control().isCancelled()) {
            hop.replies().handOver(h.credit()); // the result is for nobody: the originator ended the chain
            return null;
        }
        if (h.atomic()) { // prepared and voted before the chain goes on: the vote takes a slice of the credit
            HopState voted = hop.resumedAs(h.withCredit(atomic.voteAfter(h, h.credit(), hop.replies(), true)));
            ran = new HopResult(voted, ran.state(), ran.result(), ran.timing(), ran.cached());
        }
        if (cached != null && ran.cached() != null) { // (a hop that streams on is not kept)
            cached.served(ran.result());
        }
        return ran;
    }

    private HopResult runService(HopState hop, ChainRequest request, long arrivedNanos,
                                 HopOutcomes.Outcome recording) {
        ChainHeader h = hop.header();
        HopControl control = hop.control();
        HopReplies replies = hop.replies();
        ServiceFunction sf = services.get(h.serviceFunction());
        if (sf == null) {
            throw new HopFailure(ChainErrorCode.UNKNOWN_SERVICE_FUNCTION, "server '" + nodeName
                    + "' has no service function '" + h.serviceFunction() + "' (it has: "
                    + new TreeSet<>(services.keySet()) + ")");
        }
        long sfStart = System.nanoTime();
        Object result;
        VirtualConsole sfConsole = new VirtualConsole(h.hop(), nodeName, "service:" + h.serviceFunction(),
                hop.console());
        // an atomic hop's replies wait for the attempt to be kept: a discarded attempt's are dropped
        AttemptReplies attemptReplies = h.atomic() ? new AttemptReplies(replies) : null;
        HopContext sfContext = new HopContext(hop.location(nodeName), sfConsole,
                attemptReplies != null ? attemptReplies : replies, h.metadata(), control);
        ServiceFunction unlessCancelled = params -> {
            if (control.isCancelled()) { // marked cancelled here since the hop was taken up: the function never starts
                throw new HopFailure(ChainErrorCode.CANCELLED, "chain " + hop.chainId() + " was cancelled before service function '"
                        + h.serviceFunction() + "' started at '" + nodeName + "'");
            }
            return sf.apply(params);
        };
        RequestStream data = request.stream();
        try (var scope = sfContext.push(); var working = control.enter();
             var input = StreamInputs.bind(data == null ? InputStream.nullInputStream() : data.input())) {
            ServiceFunction around = interceptors.aroundService(sfContext, h.serviceFunction(), unlessCancelled);
            result = h.atomic() ? runAtomic(h, around, request.params(), attemptReplies) : around.apply(request.params());
            if (result instanceof StreamedResult streamed) { // its data goes with the next hop's request
                OutboundStream out = new OutboundStream(streamed.data(), "the data that hop " + h.hop() + " ('"
                        + h.serviceFunction() + "' at '" + nodeName + "') streams on");
                if (data != null) { // the function may pass on what it still reads: its stream lives as long
                    hop.running().keepInput();
                    out.done().whenComplete((v, e) -> data.discard("the stream it fed on to the next hop ended"));
                }
                hop.running().streamOut(out);
                result = streamed.value();
                recording = null; // not kept: a chain sent again runs the hop again, for its stream
            }
        } catch (HopParked parked) {
            throw parked;
        } catch (HopRejectedException r) {
            throw recorded(recording, control, HopInterceptors.rejected(r));
        } catch (Throwable e) {
            HopFailure unsent = replies.replyUnsent(e, h.serviceFunction());
            if (unsent != null) { // not kept: the hop did not complete, a retry runs it again
                throw unsent;
            }
            throw recorded(recording, control, new HopFailure(ChainErrorCode.SERVICE_FUNCTION_FAILED, e.getClass().getName(),
                    "service function '" + h.serviceFunction() + "' threw " + e, FunctionRuntime.stackTrace(e), e));
        } finally {
            if (data != null && !hop.running().keepsInput()) { // what the function left unread is dropped, and its sender stopped
                data.discard("hop " + h.hop() + "'s service function '" + h.serviceFunction() + "' returned");
            }
        }
        long sfEnd = System.nanoTime();
        return new HopResult(hop, request.state(), result, new HopTiming(h.hop(), nodeName, h.serviceFunction(),
                sfStart - arrivedNanos, sfEnd - sfStart, 0, 0, nodeName), recording);
    }

    /**
     * Runs {@code sf} on {@code params} as one attempt of a hop of the atomic chain of {@code h}, in
     * the participant of its transaction here: its value, or what it threw; a hop that must wait for
     * a lock throws {@link HopParked} (its attempt was discarded; it runs again from its start when
     * the lock is granted, on a thread it gets then).
     */
    private Object runAtomic(ChainHeader h, ServiceFunction sf, Object params, AttemptReplies replies) throws Exception {
        io.rpcc.server.internal.atomic.Participant p = atomic.join(h);
        io.rpcc.server.internal.atomic.HopRun<Object> run = atomic.engine().run(p, () -> sf.apply(params));
        return switch (run) {
            case io.rpcc.server.internal.atomic.HopRun.Done<Object> d -> {
                replies.kept(); // the attempt's replies go out now (the originator holds them until the decision)
                yield d.value();
            }
            case io.rpcc.server.internal.atomic.HopRun.Failed<Object> f -> throw f.error() instanceof Exception e ? e
                    : new IllegalStateException(f.error().toString(), f.error());
            case io.rpcc.server.internal.atomic.HopRun.Parked<Object> w -> throw new HopParked(w.resume());
        };
    }

    /**
     * The partial replies of one attempt of an atomic hop: held until the attempt is kept
     * ({@link #kept()}: sent, in order, and any later ones at once), dropped if it is discarded
     * (it waited for a lock, or failed). Work the function started through its context counts as usual.
     */
    private static final class AttemptReplies implements io.rpcc.core.internal.chain.Replies {
        private final io.rpcc.core.internal.chain.Replies to;
        private java.util.List<Object> held = new java.util.ArrayList<>(); // guarded by this; null once kept

        AttemptReplies(io.rpcc.core.internal.chain.Replies to) {
            this.to = to;
        }

        @Override
        public void preturn(Object reply) {
            synchronized (this) {
                if (held != null) {
                    held.add(reply);
                    return;
                }
            }
            to.preturn(reply);
        }

        void kept() {
            java.util.List<Object> out;
            synchronized (this) {
                out = held;
                held = null;
            }
            for (Object r : out) {
                to.preturn(r);
            }
        }

        @Override
        public void raise() {
            to.raise();
        }

        @Override
        public void lower() {
            to.lower();
        }

        @Override
        public void failed(Throwable error) {
            to.failed(error);
        }
    }

    /** {@code f}, the failure of a service function, recorded in {@code recording} (if any) unless the hop was cancelled. */
    private static HopFailure recorded(HopOutcomes.Outcome recording, HopControl control, HopFailure f) {
        if (recording != null && !control.isCancelled()) {
            recording.failed(f);
        }
        return f;
    }
}
