package io.rpcc.core.internal.chain;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.HopPath;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NameResolver;
import io.rpcc.core.OutboundPolicy;
import io.rpcc.core.NodeTls;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.transport.ConnectionPolicy;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.transport.OutboundStream;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.internal.transport.WireLimits;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.transport.ChainCredentials;
import io.rpcc.core.internal.wire.ChainCredential;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import io.rpcc.core.spi.EngineSpi;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A participant in chains: a name, a listening address, connections to its peers, the chains it
 * started ({@link ChainOriginator}) and its server side, a {@link RequestHandler} that runs the hops
 * that arrive and follows the cancels of the chains that passed through (the server's, from
 * {@code rpcc-server}; a client's refuses hops).
 * Clients and servers are both nodes; a client is a node that hosts no service functions, so the
 * last hop of a chain can send the result straight to it.
 *
 * <p>A node wires its parts, each with one job, and owns their life cycle: the {@link NodeTransport}
 * (connections), the {@link ChainOriginator} (the chains it started), the {@link HopRouter} (where
 * hops go, with failover), the {@link HeartbeatSender}, the {@link CancelRelay}, the
 * {@link InboundDispatch} (where decoded frames go), the {@link NodeTimer} and the
 * {@link LivenessSweep} that runs on it. The methods that start chains are here.
 */
@EngineSpi
public final class Node implements AutoCloseable {

    /**
     * A node's settings.
     *
     * @param transport its name, where it listens, its connections and what peers may hold of it
     * @param routing how it finds servers and fails over among their endpoints
     * @param chains the rules of the chains that pass through it
     * @param types the user's serializable types
     * @param threads runs service functions, chaining functions and callbacks (never an event loop), and
     *     says whose executor that is
     * @param functions compiles and caches chaining functions (the node's own runtime is made from it:
     *     {@link FunctionRuntime#inNode})
     * @param sourceFetcher how the node fetches the source of a chaining function it knows only by
     *     reference
     */
    public record Settings(NodeTransport.Config transport, Routing routing, ChainRules chains, TypeRegistry types,
                           HopThreads threads, FunctionRuntime functions, SourceFetcher sourceFetcher) {

        /** Runs service functions, chaining functions and callbacks (never an event loop). */
        public Executor executor() {
            return threads.executor();
        }

        /** Whose {@link #executor()} is: rpcc's own may start a hop on a platform thread instead. */
        public ExecutorOwner executorOwner() {
            return threads.owner();
        }

        /** The node's unique name. */
        public String name() {
            return transport.nodeName();
        }

        /** Turns server names into addresses. */
        public NameResolver resolver() {
            return routing.resolver();
        }

        /** How long connecting to a peer may take. */
        public Duration connectTimeout() {
            return transport.connectTimeout();
        }

        /** What peers may hold of this node. */
        public WireLimits limits() {
            return transport.limits();
        }

        /** The largest hop count this node lets a chain reach. */
        public int maxHops() {
            return chains.maxHops();
        }

        /** How long {@code preturn} waits for a slow originator before failing. */
        public Duration replyWriteTimeout() {
            return chains.replyWriteTimeout();
        }

        /** These settings, the node fetching chaining functions' sources with {@code fetcher}. */
        public Settings withSourceFetcher(SourceFetcher fetcher) {
            return new Settings(transport, routing, chains, types, threads, functions, fetcher);
        }
    }

    /**
     * How a node finds servers and fails over among their endpoints ({@link HopRouter}).
     *
     * @param resolver turns server names into addresses
     * @param ejectAfterFailures failures in a row after which an endpoint is tried last ({@link OutlierEjection})
     * @param firstEjection how long an endpoint is first tried last
     * @param outboundPolicy which addresses named in a chain's header the node connects to ({@link OutboundVouching})
     */
    public record Routing(NameResolver resolver, int ejectAfterFailures, Duration firstEjection,
                          OutboundPolicy outboundPolicy) {
    }

    /**
     * The rules of the chains that pass through a node.
     *
     * @param maxHops the largest hop count this node lets a chain reach
     * @param replyWriteTimeout how long {@code preturn} waits for a slow originator before failing
     * @param deadlineNetworkAllowance what a chain's budget loses, besides this node's own time, each time
     *     this node sends it on (the crossing to the next node)
     * @param heartbeatNetworkAllowance what a chain's time-to-heartbeat loses, besides this node's own
     *     time, each time this node sends it on (paper 3.9: 200 ms)
     */
    public record ChainRules(int maxHops, Duration replyWriteTimeout, Duration deadlineNetworkAllowance,
                             Duration heartbeatNetworkAllowance) {
    }

    /**
     * How a node fetches the source of a chaining function it knows only by reference: made for the
     * node while it is built (it asks the repository named in the reference through the node).
     */
    @FunctionalInterface
    public interface SourceFetcher {
        /** No fetching: a referenced function the node has not cached fails. */
        SourceFetcher NONE = node -> FunctionRuntime.NO_FETCHER;

        /** The fetcher of {@code node} (called once, while the node is constructed: keep the node, call it later). */
        UnaryOperator<ChainingFunctionSource> of(Node node);
    }

    /** Where a node is in its life: built, started, draining ({@link #shutdown}), closed. */
    private enum State { NEW, RUNNING, DRAINING, CLOSED }

    private final Settings settings;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final ChainBudgets budgets;
    private final NodeTransport transport;
    private final OutboundVouching vouching;
    private final HopRouter router;
    private final HeartbeatSender heartbeats;
    private final CancelRelay cancels;
    private final NodeTimer timer;
    private final ChainOriginator originator;
    private final FunctionRuntime functions;
    private volatile Serving serving; // set once, by start
    private final DrainSignal drain = new DrainSignal();
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    /**
     * What a started node hands the frames it receives to: its server side, the dispatch in front of
     * it, and the sweep that watches the chains it started and sends the heartbeats of its hops.
     */
    private record Serving(RequestHandler requests, InboundDispatch dispatch, LivenessSweep sweep) {
    }

    /** A node, not started: {@link #start(RequestHandler)} gives it its server side. */
    public Node(Settings settings) {
        this.settings = settings;
        this.budgets = new ChainBudgets(settings.chains().deadlineNetworkAllowance(),
                settings.chains().heartbeatNetworkAllowance());
        Refusals refusals = new Refusals();
        WireFormat wire = new WireFormat(new Serialization(settings.types(), settings.limits().maxValueDepth(),
                refusals::count));
        this.transport = new NodeTransport(settings.transport(), wire, refusals);
        this.vouching = new OutboundVouching(settings.routing().outboundPolicy(), settings.resolver(), transport);
        this.router = new HopRouter(settings.name(), vouching.resolver(), transport,
                new OutlierEjection(settings.routing().ejectAfterFailures(), settings.routing().firstEjection()), budgets);
        this.heartbeats = new HeartbeatSender(settings.name(), transport, router);
        this.cancels = new CancelRelay(settings.executor(), vouching.resolver(), transport);
        this.timer = new NodeTimer();
        this.originator = new ChainOriginator(settings.name(), refusals, transport::send, drain::changed, timer);
        this.functions = settings.functions().inNode(settings.name(), refusals, settings.sourceFetcher().of(this));
    }

    /**
     * Starts chain {@code start}, which this node originates, with all of the chain's credit, and
     * registers it; partial replies go to {@code sink}. The chain's budget is the earlier of its
     * timeout and its deadline (local clock, or {@code null}); its heartbeats are watched as it says
     * (paper 3.9). When the chain is cancelled or times out, the notice goes to its first server, and
     * from there follows the chain's trail.
     */
    public ChainOriginator.Pending launch(ChainStart start, ChainOriginator.ReplySink sink) {
        return launch(start, ChainPosition.FIRST, sink, null);
    }

    /**
     * As {@link #launch(ChainStart, ChainOriginator.ReplySink)}, its first hop at {@code at} (a later
     * hop, on a branch, when the chain runs step by step); if {@code rerunOf} is not {@code null}, as a
     * new run of that chain, which has ended here (same id and secret, the attempt after its: see
     * {@link ChainOriginator#restart}).
     */
    public ChainOriginator.Pending launch(ChainStart start, ChainPosition at, ChainOriginator.ReplySink sink,
                                          ChainOriginator.Pending rerunOf) {
        requireStarted();
        long budget = budgetNanos(start.timeout(), start.deadline());
        ChainOriginator.Pending p = rerunOf == null ? originator.start(start.timeout(), budget, sink)
                : originator.restart(rerunOf, start.timeout(), budget, sink);
        if (start.atomic()) {
            originator.atomic().begin(p, null);
        }
        return send(p, budget, start, at);
    }

    /**
     * Starts atomic chain {@code start} again after its attempt {@code wounded} was wounded (and
     * aborted): a new chain (new id and secret, so that the old one's cancel stops only the old one)
     * carrying the call's stamp, primary if the call is now this node's oldest. Otherwise as
     * {@link #launch(ChainStart, ChainOriginator.ReplySink)}.
     */
    public ChainOriginator.Pending relaunchAtomic(ChainOriginator.Pending wounded, ChainStart start,
                                                  ChainOriginator.ReplySink sink) {
        requireStarted();
        long budget = budgetNanos(start.timeout(), start.deadline());
        ChainOriginator.Pending p = originator.start(start.timeout(), budget, sink);
        originator.atomic().begin(p, wounded);
        return send(p, budget, start, ChainPosition.FIRST);
    }

    /**
     * Sends chain {@code earlier}, which has ended here (it failed, or broke), again as its next
     * attempt of {@code start}: same id and secret (so that its servers replay the outcomes they
     * cached of its hops, paper 3.9), all of its credit again, its frames back under the new attempt's
     * secret, its heartbeats watched as {@code start} says. Its budget is the earlier of the start's
     * timeout (what is left of the call's) and its deadline. Otherwise as {@link #launch}.
     */
    public ChainOriginator.Pending retransmit(ChainOriginator.Pending earlier, ChainStart start,
                                              ChainOriginator.ReplySink sink) {
        requireStarted();
        long budget = budgetNanos(start.timeout(), start.deadline());
        return send(originator.retransmit(earlier, start.timeout(), budget, sink), budget, start, ChainPosition.FIRST);
    }

    private ChainOriginator.Pending send(ChainOriginator.Pending p, long budget, ChainStart start, ChainPosition at) {
        String server = start.server();
        String serviceFunction = start.serviceFunction();
        int hop = at.hop();
        List<String> path = at.path();
        BranchId branch = at.branch();
        HeartbeatPolicy heartbeats = start.heartbeats();
        HeartbeatBudget heartbeat = HeartbeatBudget.NONE;
        if (heartbeats.isOn()) {
            p.watchLiveness(new ChainLiveness(branch, hop, server, heartbeats.brokenAfterNanos(), System.nanoTime()));
            heartbeat = new HeartbeatBudget(heartbeats.intervalNanos(),
                    NextHopDecision.lessAllowance(heartbeats.intervalNanos(), heartbeatAllowanceNanos()));
        }
        p.finished().whenComplete((v, e) -> {
            if (e instanceof ChainCancelledException || e instanceof ChainTimeoutException || p.expired()
                    || p.tx() != null && p.tx().wounded()) { // (an atomic chain's participants on its trail abort)
                long left = p.remainingNanos(System.nanoTime());
                passCancel(server, new CancelFrame(p.id(), p.secret(), name(),
                        left == ChainHeader.NO_DEADLINE ? left : left - allowanceNanos()));
            }
        });
        NodeAddress self = new NodeAddress(name(), transport.advertisedHost(), transport.port());
        ChainHeader header = new ChainHeader(new ChainIdentity(p.id(), p.secret(), self, p.attempt()),
                new ChainSoFar(hop, path, List.of(), List.of(), start.metadata()), serviceFunction,
                start.chainingFunction(), Credit.ONE, new ReturnRoute(self, List.of(), branch),
                new ChainLimits(start.maxHops(), budget - allowanceNanos(), heartbeat));
        if (p.tx() != null) { // an atomic chain: its stamp in every hop's header
            header = header.withTx(p.tx().stamp());
        }
        ChainCredentials credentials = transport.credentials();
        if (credentials != null) { // with TLS: the chain carries its originator's signature
            header = header.withCredential(credentials.sign(header, self,
                    new ChainCredential.FirstHop(hop, server, serviceFunction)));
        }
        if (budget != ChainHeader.NO_DEADLINE && budget <= 0) { // nothing to send: hop 1 would start past the deadline
            originator.failLocally(p.id(), new HopFailure(ChainErrorCode.DEADLINE_EXCEEDED, "hop " + hop + " ('"
                    + serviceFunction + "' at '" + server + "') would start " + TimeUnit.NANOSECONDS.toMillis(-budget)
                    + " ms or more after the chain's deadline, so it was not sent: give the chain a later deadline "
                    + "(ChainCall.deadline or timeout)"), hop, server, path);
            return p;
        }
        ChainRequest request = new ChainRequest(header, start.params(), start.state(), null, 0, null, start.stream());
        if (start.stream() != null) { // a chain that ends (cancelled, timed out, failed) stops its stream
            OutboundStream data = start.stream();
            p.finished().whenComplete((v, e) -> data.discard(e == null ? "the chain ended"
                    : "the chain ended at its originator: " + unwrap(e)));
        }
        forward(server, request, start.failovers()).whenComplete((v, e) -> {
            if (e != null) {
                Throwable cause = unwrap(e);
                originator.failLocally(p.id(), cause instanceof HopFailure f ? f
                        : new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "cannot reach '" + server + "': " + cause, cause));
            }
        });
        return p;
    }

    /** The budget of a chain: nanoseconds until the earlier of {@code timeout} from now and {@code deadline} (or {@code null}). */
    public static long budgetNanos(Duration timeout, Instant deadline) {
        return ChainBudgets.budgetNanos(timeout, deadline);
    }

    /** What a chain's budget loses per crossing, besides the sender's own time. */
    public long allowanceNanos() {
        return budgets.allowanceNanos();
    }

    /** What a chain's time-to-heartbeat loses per crossing, besides the sender's own time. */
    public long heartbeatAllowanceNanos() {
        return budgets.heartbeatAllowanceNanos();
    }

    /**
     * Tells the top-level originator of the chain of {@code h} that the chain is alive at hop
     * {@code hop} on {@code branch}, whose levels' sibling counts are {@code siblings}
     * ({@link HeartbeatSender#send}; call off the event loops).
     */
    public void sendHeartbeat(ChainHeader h, int hop, BranchId branch, List<Integer> siblings) {
        sendHeartbeat(h, hop, branch, siblings, false);
    }

    /**
     * As {@link #sendHeartbeat(ChainHeader, int, BranchId, List)}, for a hop that has handed the chain
     * on but still owes it partial replies ({@code owesReplies}: work it started runs on).
     */
    public void sendHeartbeat(ChainHeader h, int hop, BranchId branch, List<Integer> siblings, boolean owesReplies) {
        heartbeats.send(h, hop, branch, siblings, owesReplies);
    }

    /**
     * Cancels chain {@code p}, which this node started: it ends at once with a
     * {@link ChainCancelledException} and the notice follows its trail. {@code false} if it had ended.
     */
    public boolean cancel(ChainOriginator.Pending p, String why) {
        return originator.cancel(p, why);
    }

    /**
     * Sends {@code frame}, the cancel of a chain, to {@code next}, where the chain went from here;
     * resolves that name on the executor (a resolver may block), never on an event loop.
     */
    public void passCancel(String next, CancelFrame frame) {
        cancels.pass(next, frame);
    }

    /**
     * A plain call from this node ({@code serviceFunction} at {@code server}), waiting for its
     * result; for rpcc's own services (the repository). Throws the chain's {@code ChainException}.
     */
    public Object call(String server, String serviceFunction, Object params, Duration timeout) {
        ChainOriginator.Pending p = launch(ChainStart.call(server, serviceFunction, params, timeout),
                (value, hop, host, bytes) -> { });
        try {
            ChainOriginator.Arrival a = p.outcome().join();
            if (a.frame().decodeError() != null) {
                throw a.frame().decodeError();
            }
            return a.frame().value();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    /**
     * Starts the node: takes its holds on the shared threads (see {@link #close()}) and listens;
     * returns the bound address. Connections to peers open on first use.
     *
     * @throws IllegalStateException if the node was started before
     */
    public InetSocketAddress start() {
        return start(new RefusingRequestHandler(this));
    }

    /**
     * Starts the node with {@code serverSide} running the hops that arrive (as a transport gets its
     * listener when it starts): a server's side is built on the node, so the node cannot be given it
     * when it is built. Returns where the node listens.
     *
     * @throws IllegalStateException if the node was started or closed before
     */
    public InetSocketAddress start(RequestHandler serverSide) {
        if (state.get() != State.NEW) {
            throw alreadyStarted();
        }
        InboundDispatch dispatch = new InboundDispatch(new RequestAdmission(settings.name(),
                () -> state.get() == State.RUNNING, settings.executor(), vouching, transport), serverSide, originator,
                transport, settings.types());
        Serving s = new Serving(serverSide, dispatch, new LivenessSweep(originator, serverSide, settings.executor(), timer));
        synchronized (this) { // one start: the first to get here publishes its server side
            if (serving != null) {
                throw alreadyStarted();
            }
            serving = s;
        }
        if (!state.compareAndSet(State.NEW, State.RUNNING)) { // closed meanwhile
            throw alreadyStarted();
        }
        functions.open();
        timer.open();
        // a decision goes back on the connection the vote came on while it is usable (open, not going away) and
        // from that node: on the event loop that read the last vote, no hand-off to another loop; otherwise by
        // name, on a connection of the pool (resent once if refused unsent)
        originator.atomic().sendWith((via, to, frame) -> via != null && transport.usable(via)
                && to.node().equals(transport.peerName(via)) ? transport.send(via, frame)
                : transport.send(to.node(), addressOf(to), frame));
        s.sweep().start();
        InetSocketAddress address;
        try {
            address = transport.start(dispatch);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        if (!(serverSide instanceof RefusingRequestHandler)) { // a node that runs hops (not a plain client)
            // javac and GraalJS, and the functions the node knows, off the critical path: the first chain pays
            // neither (after the transport started: fetching a known function's source needs it)
            functions.warmUpInBackground();
        }
        return address;
    }

    private IllegalStateException alreadyStarted() {
        return new IllegalStateException("node '" + name() + "' " + (state.get() == State.CLOSED
                ? "is closed: build a new one" : "is started already"));
    }

    /** Throws unless the node was started (it may have closed since: then chains fail with a typed error). */
    public void requireStarted() {
        if (state.get() == State.NEW) {
            throw new IllegalStateException("node '" + name() + "' is not started: call start() after build()");
        }
    }

    /**
     * Throws unless the node takes new chains: {@link IllegalStateException} if it is not started,
     * {@link NodeShuttingDownException} while it drains, {@link NodeClosedException} once closed.
     */
    public void requireAcceptingChains() {
        switch (state.get()) {
            case NEW -> requireStarted();
            case DRAINING -> throw refusal(ChainErrorCode.NODE_SHUTTING_DOWN, "node '" + name()
                    + "' is shutting down and starts no new chains; start it on another node");
            case CLOSED -> throw closedError();
            case RUNNING -> { }
        }
    }

    private ChainException closedError() {
        return refusal(ChainErrorCode.NODE_CLOSED, "node '" + name() + "' was closed; its chains in flight ended "
                + "with it and it starts no new ones (build and start a new node)");
    }

    private ChainException refusal(ChainErrorCode code, String message) {
        return LocatedFailure.detected(code, message, name(), 0, List.of()).toException();
    }

    /** The settings. */
    public Settings settings() {
        return settings;
    }

    /** The node's name. */
    public String name() {
        return settings.name();
    }

    /** The transport. */
    public NodeTransport transport() {
        return transport;
    }

    /** The chains this node started. */
    public ChainOriginator originator() {
        return originator;
    }

    /**
     * The node's timer (open while the node runs): what the node's parts and its server side
     * schedule.
     */
    public NodeTimer timer() {
        return timer;
    }

    /** Where this node's hops and frames go. */
    public HopRouter router() {
        return router;
    }

    /** The chaining-function runtime. */
    public FunctionRuntime functions() {
        return functions;
    }

    /** The executor for user code. */
    public Executor executor() {
        return settings.executor();
    }

    /**
     * Sends {@code request} to server {@code server}, failing over among its endpoints
     * ({@link HopRouter#forward(String, ChainRequest)}). Fails with a {@link HopFailure}.
     */
    public CompletableFuture<Void> forward(String server, ChainRequest request) {
        return router.forward(server, request);
    }

    /** As {@link #forward(String, ChainRequest)}, telling {@code failovers} of each failover. */
    public CompletableFuture<Void> forward(String server, ChainRequest request, Failovers failovers) {
        return router.forward(server, request, failovers);
    }

    /** Sends {@code request} to server {@code server} at {@code address} (no failover; {@link HopRouter#forward(String, InetSocketAddress, ChainRequest)}). */
    public CompletableFuture<Void> forward(String server, InetSocketAddress address, ChainRequest request) {
        return router.forward(server, address, request);
    }

    /** The failover of this node's names with several endpoints (counts). */
    public OutlierEjection ejection() {
        return router.ejection();
    }

    /** Where the results, errors and replies of {@code h} go ({@link HopRouter#replyAddress}). */
    public InetSocketAddress replyAddress(ChainHeader h) {
        return router.replyAddress(h);
    }

    /** Where {@code to} is reached ({@link HopRouter#addressOf}). */
    public InetSocketAddress addressOf(NodeAddress to) {
        return router.addressOf(to);
    }

    /** The cause of a failed future's exception. */
    public static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** The path of {@code h} with this node appended, bounded ({@link HopPath#through}). */
    public List<String> pathThrough(ChainHeader h) {
        return HopPath.through(h.path(), name());
    }

    /**
     * Takes hop {@code request} as if it had arrived from the network ({@link InboundDispatch#onRequest}):
     * refused while the node does not run, else handed to the server side.
     */
    public void onRequest(ChainRequest request) {
        serving.dispatch().onRequest(request);
    }

    /**
     * Drains, then closes: takes no new chains or hops (hops are refused with
     * {@link NodeShuttingDownException}, so their originators can retry elsewhere), waits up to
     * {@code grace} for the hops running here and the chains started here to finish, then
     * {@link #close()}s, ending whatever is still running.
     */
    public void shutdown(Duration grace) {
        State was = state.get();
        if (was == State.RUNNING && !state.compareAndSet(State.RUNNING, State.DRAINING)) {
            was = state.get();
        }
        if (was == State.RUNNING || was == State.DRAINING) {
            long deadline = System.nanoTime() + grace.toNanos();
            try {
                RequestHandler requests = serving.requests();
                drain.await(() -> requests.hopsInFlight() == 0 && originator.inFlight() == 0, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // stop waiting: close now
            }
        }
        close();
    }

    /**
     * Closes the node at once: every chain it started ends now with {@link NodeClosedException}
     * (futures and reply sets complete, nothing waits for a timeout); every hop running here is
     * abandoned, its originator told with a {@link NodeClosedException} naming this node if that can
     * still be sent; the node stops listening, closes its connections and gives up its holds on the
     * shared threads (the last node to close stops them). Idempotent.
     */
    @Override
    public void close() {
        State was = state.getAndSet(State.CLOSED);
        if (was == State.CLOSED) {
            return;
        }
        Serving s = serving;
        if (s != null) {
            s.sweep().stop();
        }
        if (was != State.NEW && s != null) {
            try {
                s.requests().abandonHops().get(ABANDON_REPORT_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                log.debug("node '{}': not every abandoned hop could be reported before closing: {}", name(), e.toString());
            }
        }
        originator.close(this::closedError);
        timer.close();
        transport.close();
        if (was != State.NEW) {
            functions.close();
        }
    }

    /**
     * Something a draining node waits for ended here: a hop, or a frame a hop handed on (the server
     * side calls this; the originator's chains signal by themselves).
     */
    public void inFlightChanged() {
        drain.changed();
    }

    /** How long closing waits for the reports of abandoned hops to be written. */
    private static final long ABANDON_REPORT_WAIT_MS = 1000;
}
