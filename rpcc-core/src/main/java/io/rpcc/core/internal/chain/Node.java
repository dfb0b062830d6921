package io.rpcc.core.internal.chain;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.ChainException;
import io.rpcc.core.FailureFields;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NameResolver;
import io.rpcc.core.NodeTls;
import io.rpcc.core.Refusal;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.transport.InboundListener;
import io.rpcc.core.internal.transport.ConnectionPolicy;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.internal.transport.WireLimits;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A participant in chains: a name, a listening address, connections to its peers, the chains it
 * started ({@link ChainOriginator}) and its server side, a {@link RequestHandler} that runs the hops
 * that arrive and follows the cancels of the chains that passed through (the server's, from
 * {@code rpcc-server}; a client's refuses hops).
 * Clients and servers are both nodes; a client is a node that hosts no service functions, so the
 * last hop of a chain can send the result straight to it.
 */
public final class Node implements InboundListener, AutoCloseable {

    /**
     * A node's settings.
     *
     * @param name the node's unique name
     * @param bind where to listen (port 0: any free port)
     * @param advertisedHost the host other nodes reach this one at, or {@code null}
     * @param maxFrameSize the largest frame sent or accepted
     * @param connectTimeout how long connecting to a peer may take
     * @param group event loops, or {@code null} for the shared ones
     * @param resolver turns server names into addresses
     * @param types the user's serializable types
     * @param executor runs service functions, chaining functions and callbacks (never an event loop)
     * @param functions compiles and caches chaining functions
     * @param maxHops the largest hop count this node lets a chain reach
     * @param replyWriteTimeout how long {@code preturn} waits for a slow originator before failing
     * @param tls the node's certificate and trusted CAs for mutual TLS, or {@code null} for plaintext
     * @param limits what peers may hold of this node
     * @param pipelineCustomizer what the user adds to every connection's pipeline
     * @param deadlineNetworkAllowance what a chain's budget loses, besides this node's own time, each time
     *     this node sends it on (the crossing to the next node)
     * @param heartbeatNetworkAllowance what a chain's time-to-heartbeat loses, besides this node's own
     *     time, each time this node sends it on (paper 3.9: 200 ms)
     * @param executorOwner whose {@code executor} is: rpcc's own may start a hop on a platform thread
     *     instead, the user's is used as given
     */
    public record Settings(String name, InetSocketAddress bind, String advertisedHost, int maxFrameSize,
                           Duration connectTimeout, EventLoopGroup group, NameResolver resolver, TypeRegistry types,
                           Executor executor, FunctionRuntime functions, int maxHops, Duration replyWriteTimeout,
                           NodeTls tls, WireLimits limits, Consumer<ChannelPipeline> pipelineCustomizer,
                           Duration deadlineNetworkAllowance, Duration heartbeatNetworkAllowance,
                           int ejectAfterFailures, Duration firstEjection, ConnectionPolicy connections,
                           ExecutorOwner executorOwner) {
    }

    /** Where a node is in its life: built, started, draining ({@link #shutdown}), closed. */
    private enum State { NEW, RUNNING, DRAINING, CLOSED }

    private final Settings settings;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final NodeTransport transport;
    private final ChainOriginator originator;
    private final RequestHandler requests;
    private final Refusals refusals;
    private volatile LivenessSweep sweep;
    private final DrainSignal drain = new DrainSignal();
    private final OutlierEjection ejection;
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    /**
     * A node whose server side {@code serverSide} makes for it (called once, last in this
     * constructor), or that refuses hops if it is {@code null}.
     */
    public Node(Settings settings, Function<Node, RequestHandler> serverSide) {
        this.settings = settings;
        this.ejection = new OutlierEjection(settings.ejectAfterFailures(), settings.firstEjection());
        this.refusals = new Refusals();
        WireFormat wire = new WireFormat(new Serialization(settings.types(), settings.limits().maxValueDepth(),
                refusals::count));
        this.transport = new NodeTransport(new NodeTransport.Config(settings.name(), settings.bind(),
                settings.advertisedHost(), settings.maxFrameSize(), settings.connectTimeout(), settings.group(),
                settings.tls(), settings.limits(), settings.pipelineCustomizer(), settings.connections()), wire, refusals, this);
        this.originator = new ChainOriginator(settings.name(), refusals, transport::send, drain::changed);
        settings.functions().countRefusalsIn(transport.refusals());
        this.requests = serverSide != null ? serverSide.apply(this) : new RefusingRequestHandler(this);
    }

    /**
     * Starts hop {@code hop} (after {@code path}) of a chain that this node originates, with all of
     * the chain's credit, and registers it; partial replies go to {@code sink}. The chain's budget is
     * the earlier of {@code timeout} and {@code deadline} (local clock, or {@code null}). When the
     * chain is cancelled or times out, the notice goes to {@code server}, and from there follows the
     * chain's trail.
     */
    public ChainOriginator.Pending launch(String server, String serviceFunction, Object params,
                                          ChainingFunctionSource cf, ChainState state, Metadata metadata,
                                          Duration timeout, Instant deadline, int hop, int maxHops, List<String> path,
                                          ChainOriginator.ReplySink sink) {
        return launch(server, serviceFunction, params, cf, state, metadata, timeout, deadline, hop, maxHops, path, sink,
                BranchId.root());
    }

    /** As {@link #launch(String, String, Object, ChainingFunctionSource, ChainState, Metadata, Duration, Instant, int, int, List, ChainOriginator.ReplySink)}, on {@code branch} (interactive mode's branches of a split). */
    public ChainOriginator.Pending launch(String server, String serviceFunction, Object params,
                                          ChainingFunctionSource cf, ChainState state, Metadata metadata,
                                          Duration timeout, Instant deadline, int hop, int maxHops, List<String> path,
                                          ChainOriginator.ReplySink sink, BranchId branch) {
        return launch(server, serviceFunction, params, cf, state, metadata, timeout, deadline, hop, maxHops, path, sink,
                branch, HeartbeatPolicy.OFF, null);
    }

    /**
     * As {@link #launch(String, String, Object, ChainingFunctionSource, ChainState, Metadata, Duration, Instant, int, int, List, ChainOriginator.ReplySink, BranchId)},
     * watching the chain's heartbeats as {@code heartbeats} says (paper 3.9); if {@code rerunOf} is
     * not {@code null}, as a new run of that chain, which has ended here (same id and secret, the
     * attempt after its: see {@link ChainOriginator#restart}).
     */
    public ChainOriginator.Pending launch(String server, String serviceFunction, Object params,
                                          ChainingFunctionSource cf, ChainState state, Metadata metadata,
                                          Duration timeout, Instant deadline, int hop, int maxHops, List<String> path,
                                          ChainOriginator.ReplySink sink, BranchId branch, HeartbeatPolicy heartbeats,
                                          ChainOriginator.Pending rerunOf) {
        requireStarted();
        long budget = budgetNanos(timeout, deadline);
        ChainOriginator.Pending p = rerunOf == null ? originator.start(timeout, budget, sink)
                : originator.restart(rerunOf, timeout, budget, sink);
        return send(p, budget, server, serviceFunction, params, cf, state, metadata, hop, maxHops, path, branch,
                heartbeats);
    }

    /**
     * Sends chain {@code earlier}, which has ended here (it failed, or broke), again as its next
     * attempt: same id and secret (so that its servers replay the outcomes they cached of its hops,
     * paper 3.9), all of its credit again, its frames back under the new attempt's secret, its
     * heartbeats watched as {@code heartbeats} says. Its budget is the earlier of {@code timeout}
     * (what is left of the call's) and {@code deadline}. Otherwise as {@link #launch}.
     */
    public ChainOriginator.Pending retransmit(ChainOriginator.Pending earlier, String server, String serviceFunction,
                                              Object params, ChainingFunctionSource cf, ChainState state,
                                              Metadata metadata, Duration timeout, Instant deadline, int maxHops,
                                              ChainOriginator.ReplySink sink, HeartbeatPolicy heartbeats) {
        requireStarted();
        long budget = budgetNanos(timeout, deadline);
        return send(originator.retransmit(earlier, timeout, budget, sink), budget, server, serviceFunction, params, cf,
                state, metadata, 1, maxHops, List.of(), BranchId.root(), heartbeats);
    }

    private ChainOriginator.Pending send(ChainOriginator.Pending p, long budget, String server, String serviceFunction,
                                         Object params, ChainingFunctionSource cf, ChainState state, Metadata metadata,
                                         int hop, int maxHops, List<String> path, BranchId branch,
                                         HeartbeatPolicy heartbeats) {
        HeartbeatBudget heartbeat = HeartbeatBudget.NONE;
        if (heartbeats.isOn()) {
            p.watchLiveness(new ChainLiveness(branch, hop, server, heartbeats.brokenAfterNanos(), System.nanoTime()));
            heartbeat = new HeartbeatBudget(heartbeats.intervalNanos(),
                    NextHopDecision.lessAllowance(heartbeats.intervalNanos(), heartbeatAllowanceNanos()));
        }
        p.finished().whenComplete((v, e) -> {
            if (e instanceof ChainCancelledException || e instanceof ChainTimeoutException || p.expired()) {
                long left = p.remainingNanos(System.nanoTime());
                passCancel(server, new CancelFrame(p.id(), p.secret(), name(),
                        left == ChainHeader.NO_DEADLINE ? left : left - allowanceNanos()));
            }
        });
        NodeAddress self = new NodeAddress(name(), transport.advertisedHost(), transport.port());
        ChainHeader header = new ChainHeader(p.id(), p.secret(), self.node(), self.host(), self.port(), hop, maxHops, path,
                List.of(), List.of(), serviceFunction, cf, Credit.ONE, self, metadata, List.of(), branch,
                budget - allowanceNanos(), heartbeat, p.attempt());
        if (budget != ChainHeader.NO_DEADLINE && budget <= 0) { // nothing to send: hop 1 would start past the deadline
            originator.failLocally(p.id(), new HopFailure(ErrorCode.DEADLINE_EXCEEDED, "hop " + hop + " ('"
                    + serviceFunction + "' at '" + server + "') would start " + TimeUnit.NANOSECONDS.toMillis(-budget)
                    + " ms or more after the chain's deadline, so it was not sent: give the chain a later deadline "
                    + "(ChainCall.deadline or timeout)"), hop, server, path);
            return p;
        }
        forward(server, new ChainRequest(header, params, state, null)).whenComplete((v, e) -> {
            if (e != null) {
                Throwable cause = unwrap(e);
                originator.failLocally(p.id(), cause instanceof HopFailure f ? f
                        : new HopFailure(ErrorCode.HOP_UNREACHABLE, "cannot reach '" + server + "': " + cause, cause));
            }
        });
        return p;
    }

    /** The budget of a chain: nanoseconds until the earlier of {@code timeout} from now and {@code deadline} (or {@code null}). */
    public static long budgetNanos(Duration timeout, Instant deadline) {
        long budget = saturatedNanos(timeout);
        return deadline == null ? budget : Math.min(budget, saturatedNanos(Duration.between(Instant.now(), deadline)));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE / 2 : ChainHeader.NO_DEADLINE - 1;
        }
    }

    /** What a chain's budget loses per crossing, besides the sender's own time. */
    public long allowanceNanos() {
        return settings.deadlineNetworkAllowance().toNanos();
    }

    /** What a chain's time-to-heartbeat loses per crossing, besides the sender's own time. */
    public long heartbeatAllowanceNanos() {
        return settings.heartbeatNetworkAllowance().toNanos();
    }

    /**
     * Tells the top-level originator of the chain of {@code h} that the chain (its attempt: the
     * frame carries {@link ChainHeader#attemptSecret()}) is alive at hop {@code hop} on {@code branch}, whose levels' sibling counts are {@code siblings} (paper 3.9,
     * 3.10); resolves the originator's name (call off the event loops). A heartbeat that cannot be
     * sent is dropped (the next one may get through; the originator tells a broken chain by silence).
     */
    public void sendHeartbeat(ChainHeader h, int hop, BranchId branch, List<Integer> siblings) {
        sendHeartbeat(h, hop, branch, siblings, false);
    }

    /**
     * As {@link #sendHeartbeat(ChainHeader, int, BranchId, List)}, for a hop that has handed the chain
     * on but still owes it partial replies ({@code owesReplies}: work it started runs on).
     */
    public void sendHeartbeat(ChainHeader h, int hop, BranchId branch, List<Integer> siblings, boolean owesReplies) {
        HeartbeatFrame frame = new HeartbeatFrame(h.chainId(), h.attemptSecret(), hop, name(), branch, siblings,
                owesReplies);
        transport.send(h.origin(), addressOf(h.originator()), frame).whenComplete((v, e) -> {
            if (e != null) {
                log.debug("cannot send a heartbeat of chain {}#{} to '{}': {}", h.origin(), h.chainId(), h.origin(),
                        unwrap(e).getMessage());
            }
        });
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
        executor().execute(() -> passOn(next, frame));
    }

    private void passOn(String next, CancelFrame frame) {
        InetSocketAddress address;
        try {
            address = settings.resolver().resolve(next).orElse(null);
        } catch (RuntimeException e) {
            address = null;
        }
        if (address == null) {
            log.debug("cannot pass the cancel of chain {}#{} on to '{}': no address", frame.origin(), frame.chainId(), next);
            return;
        }
        transport.send(next, address, frame).whenComplete((v, e) -> {
            if (e != null) {
                log.debug("cannot pass the cancel of chain {}#{} on to '{}': {}", frame.origin(), frame.chainId(), next,
                        unwrap(e).getMessage());
            }
        });
    }

    /**
     * A plain call from this node ({@code serviceFunction} at {@code server}), waiting for its
     * result; for rpcc's own services (the repository). Throws the chain's {@code ChainException}.
     */
    public Object call(String server, String serviceFunction, Object params, Duration timeout) {
        ChainOriginator.Pending p = launch(server, serviceFunction, params, ChainingFunctionSource.NONE,
                ChainState.empty(), Metadata.empty(), timeout, null, 1, 1, List.of(), (value, hop, host, bytes) -> { });
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
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("node '" + name() + "' " + (state.get() == State.CLOSED
                    ? "is closed: build a new one" : "is started already"));
        }
        settings.functions().open();
        originator.open();
        sweep = new LivenessSweep(originator, requests, executor(), originator.timer());
        sweep.start();
        try {
            return transport.start();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
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
            case DRAINING -> throw refusal(ErrorCode.NODE_SHUTTING_DOWN, "node '" + name()
                    + "' is shutting down and starts no new chains; start it on another node");
            case CLOSED -> throw closedError();
            case RUNNING -> { }
        }
    }

    private ChainException closedError() {
        return refusal(ErrorCode.NODE_CLOSED, "node '" + name() + "' was closed; its chains in flight ended "
                + "with it and it starts no new ones (build and start a new node)");
    }

    private ChainException refusal(ErrorCode code, String message) {
        return code.toException(new ChainFailure(code.exceptionName(), message, name(), 0, List.of(), List.of(),
                List.of(), List.of()));
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

    /** The chaining-function runtime. */
    public FunctionRuntime functions() {
        return settings.functions();
    }

    /** The executor for user code. */
    public Executor executor() {
        return settings.executor();
    }

    /**
     * Sends {@code request} to server {@code server}: resolves its name, connects (or reuses the
     * connection) and writes the frame. A name with several endpoints fails over: if the hop cannot
     * be handed to one (no connection, a failed handshake, or the connection failed before the frame
     * was written), the next is tried, in the resolver's order with ejected endpoints last
     * ({@link OutlierEjection}); a frame once written is the peer's, and what becomes of it is for
     * heartbeats and retry to find out. Fails with a {@link HopFailure}: unknown server, unreachable
     * server (every endpoint), or a request that cannot be serialized.
     */
    public CompletableFuture<Void> forward(String server, ChainRequest request) {
        long sinceNanos = System.nanoTime();
        List<InetSocketAddress> endpoints;
        try {
            endpoints = settings.resolver().resolveAll(server);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new HopFailure(ErrorCode.UNKNOWN_SERVER, "resolving server '" + server
                    + "' failed: " + e, e));
        }
        if (endpoints.isEmpty()) {
            return CompletableFuture.failedFuture(new HopFailure(ErrorCode.UNKNOWN_SERVER, "no address for server '"
                    + server + "' (name resolver: " + settings.resolver() + ")"));
        }
        if (endpoints.size() == 1) {
            return sendRequest(server, endpoints.getFirst(), request, sinceNanos);
        }
        return tryEndpoints(server, request, ejection.order(endpoints, System.nanoTime()), 0, new ArrayList<>(),
                sinceNanos);
    }

    /**
     * Sends {@code request} to server {@code server} at {@code address} (no failover), its budget
     * charged as {@link #charged} says.
     */
    public CompletableFuture<Void> forward(String server, InetSocketAddress address, ChainRequest request) {
        return sendRequest(server, address, request, System.nanoTime());
    }

    private CompletableFuture<Void> sendRequest(String server, InetSocketAddress address, ChainRequest request,
                                                long sinceNanos) {
        return transport.connect(server, address).thenCompose(ch -> transport.send(ch, charged(request, ch, sinceNanos)));
    }

    /**
     * {@code request}, whose budget was made (less {@link #allowanceNanos()}) at {@code sinceNanos},
     * as it leaves on connection {@code ch}: its budget less the time since (a resolver's answer, a
     * new connection's handshake) and less what the crossing is estimated to take beyond the
     * allowance already charged: the connection's one-way time ({@link NodeTransport#oneWayNanos},
     * half its smoothed round trip and deviation). The allowance is thus the least a crossing costs.
     */
    ChainRequest charged(ChainRequest request, Channel ch, long sinceNanos) {
        ChainHeader h = request.header();
        long oneWay = transport.oneWayNanos(ch); // (keeps the estimate fresh, deadline or not)
        if (h.budgetNanos() == ChainHeader.NO_DEADLINE) {
            return request;
        }
        long charge = Math.max(0, System.nanoTime() - sinceNanos) + Math.max(0, oneWay - allowanceNanos());
        if (charge == 0) {
            return request;
        }
        return new ChainRequest(h.withBudget(NextHopDecision.lessAllowance(h.budgetNanos(), charge)), request.params(),
                request.state(), request.decodeError());
    }

    /** Sends to {@code order[i]}, and on to the next endpoint if that one cannot take the hop. */
    private CompletableFuture<Void> tryEndpoints(String server, ChainRequest request, List<InetSocketAddress> order,
                                                 int i, List<String> failures, long sinceNanos) {
        InetSocketAddress endpoint = order.get(i);
        return sendRequest(server, endpoint, request, sinceNanos).handle((v, e) -> {
            if (e == null) {
                ejection.succeeded(endpoint);
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = unwrap(e);
            if (!(cause instanceof HopFailure f) || !f.code().unreachable()) {
                return CompletableFuture.<Void>failedFuture(cause); // (the request itself is at fault: no endpoint takes it)
            }
            boolean last = i == order.size() - 1;
            ejection.failed(endpoint, System.nanoTime(), !last);
            failures.add(endpoint + ": " + f.getMessage());
            if (!last) {
                log.debug("node '{}' fails over from {} to {} for server '{}': {}", name(), endpoint, order.get(i + 1),
                        server, f.getMessage());
                return tryEndpoints(server, request, order, i + 1, failures, sinceNanos);
            }
            return CompletableFuture.<Void>failedFuture(new HopFailure(f.code(), "cannot reach server '" + server
                    + "' at any of its " + order.size() + " endpoints (tried in this order): "
                    + String.join("; ", failures) + "; check that one of them runs and is reachable from '" + name()
                    + "', or give the name another endpoint", f));
        }).thenCompose(x -> x);
    }

    /** The failover of this node's names with several endpoints (counts). */
    public OutlierEjection ejection() {
        return ejection;
    }

    /**
     * Where the results, errors and replies of {@code h} go (its reply-to node): through this node's
     * resolver if it knows that node's name (so that a testbed or a NAT can route the way back), else
     * at the address the header gives.
     */
    public InetSocketAddress replyAddress(ChainHeader h) {
        return addressOf(h.replyTo());
    }

    /**
     * Where {@code to} is reached: at the address this node's resolver gives for its name, else at the
     * host and port it carries.
     */
    public InetSocketAddress addressOf(NodeAddress to) {
        try {
            var known = settings.resolver().resolve(to.node());
            if (known.isPresent()) {
                return known.get();
            }
        } catch (RuntimeException e) {
            // fall back to the advertised address
        }
        return new InetSocketAddress(to.host(), to.port());
    }

    /** The cause of a failed future's exception. */
    public static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** The path of {@code h} with this node appended. */
    public List<String> pathThrough(ChainHeader h) {
        List<String> path = new ArrayList<>(h.path().size() + 1);
        path.addAll(h.path());
        path.add(name());
        return path;
    }

    @Override
    public void onRequest(ChainRequest request) {
        if (state.get() != State.RUNNING) {
            ChainHeader h = request.header();
            executor().execute(() -> requests.refuse(h, new HopFailure(ErrorCode.NODE_SHUTTING_DOWN, "node '" + name()
                    + "' is shutting down and starts no new hops; '" + h.serviceFunction() + "' did not run: retry"
                    + " at another server or once it is back")));
            return;
        }
        // counted from its first bytes: reading the rest and decoding it took some of its budget
        requests.onRequest(request, request.arrivedNanos() != 0 ? request.arrivedNanos() : System.nanoTime());
    }

    @Override
    public void onHeartbeat(HeartbeatFrame heartbeat) {
        originator.onHeartbeat(heartbeat);
    }

    @Override
    public void onCancel(CancelFrame cancel) {
        if (!requests.cancel(cancel)) {
            refusals.count(Refusal.FORGED_FRAME);
        }
    }


    @Override
    public void onResult(ChainResultFrame result) {
        originator.onResult(result);
    }

    @Override
    public void onError(ChainErrorFrame error) {
        if (!requests.relay(error, null)) {
            originator.onError(withTypeName(error));
        }
    }

    @Override
    public void onReply(ReplyFrame reply, Channel from) {
        if (!requests.relay(reply, from)) {
            originator.onReply(reply, from);
        }
    }

    @Override
    public void onWindowUpdate(WindowUpdateFrame update, Channel from) {
        if (!update.grant()) {
            if (!requests.relay(update, from)) {
                originator.onWindowUpdate(update, from);
            }
        } else if (!requests.grant(update)) {
            // the stream has ended: the room goes back to the originator
            transport.send(from, new WindowUpdateFrame(update.chainId(), update.secret(), update.hop(), update.host(),
                    false, update.replies(), update.bytes(), 0));
        }
    }

    @Override
    public void onQuiet(QuietFrame quiet) {
        if (!requests.relay(quiet, null)) {
            originator.onQuiet(quiet);
        }
    }

    /**
     * A receiver that did not register a type knows only its id; the originator usually registered
     * it, so it can name the class.
     */
    private ChainErrorFrame withTypeName(ChainErrorFrame error) {
        ChainFailure f = error.failure();
        FailureFields fields = f.fields();
        Class<?> type = fields.typeId() == null || fields.typeName() != null ? null : settings.types().typeOf(fields.typeId());
        if (type == null) {
            return error;
        }
        String id = "type id " + fields.typeId();
        String named = id + " (" + type.getName() + " at the originator)";
        String message = f.message() != null && f.message().contains(id + " ") ? f.message().replace(id + " ", named + " ")
                : f.message() + " (the originator registers " + id + " as " + type.getName() + ")";
        FailureFields withName = new FailureFields(fields.transientCondition(), fields.sandboxRule(), type.getName(),
                fields.typeId(), fields.diagnostics());
        return new ChainErrorFrame(error.chainId(), error.secret(), error.code(), new ChainFailure(f.exceptionName(), message,
                f.host(), f.hop(), f.path(), f.details(), f.console(), f.timings(), withName), error.credit());
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
        LivenessSweep s = sweep;
        if (s != null) {
            s.stop();
        }
        if (was != State.NEW) {
            try {
                requests.abandonHops().get(ABANDON_REPORT_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                log.debug("node '{}': not every abandoned hop could be reported before closing: {}", name(), e.toString());
            }
        }
        originator.close(this::closedError);
        transport.close();
        if (was != State.NEW) {
            settings.functions().close();
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
