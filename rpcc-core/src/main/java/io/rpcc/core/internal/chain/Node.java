package io.rpcc.core.internal.chain;

import io.netty.channel.EventLoopGroup;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.internal.function.RepositoryProtocol;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.NameResolver;
import io.rpcc.core.NodeTls;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.transport.InboundListener;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.transport.RateLimitedWarnings;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.internal.transport.WireLimits;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A participant in chains: a name, a listening address, connections to its peers, the chains it
 * started ({@link ChainOriginator}) and, for servers, a {@link RequestHandler} that runs hops.
 * Clients and servers are both nodes; a client is a node that hosts no service functions, so the
 * last hop of a chain can send the result straight to it.
 */
public final class Node implements InboundListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);
    /** An originator that cannot be reached may have started many chains: one warning per address per 10 s. */
    private final RateLimitedWarnings unreachableOrigins = new RateLimitedWarnings(log, TimeUnit.SECONDS.toNanos(10));

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
     */
    public record Settings(String name, InetSocketAddress bind, String advertisedHost, int maxFrameSize,
                           Duration connectTimeout, EventLoopGroup group, NameResolver resolver, TypeRegistry types,
                           Executor executor, FunctionRuntime functions, int maxHops, Duration replyWriteTimeout,
                           NodeTls tls, WireLimits limits) {
    }

    private final Settings settings;
    private final NodeTransport transport;
    private final ChainOriginator originator;
    private final RequestHandler requests;
    private final ReplyStreams replyStreams = new ReplyStreams();

    /** A node that handles hop requests with {@code requests} (or rejects them if {@code null}). */
    public Node(Settings settings, RequestHandler requests) {
        this.settings = settings;
        this.requests = requests != null ? requests : Node::rejectRequest;
        Refusals refusals = new Refusals();
        WireFormat wire = new WireFormat(new Serialization(settings.types(), settings.limits().maxValueDepth(),
                refusals::count));
        this.transport = new NodeTransport(new NodeTransport.Config(settings.name(), settings.bind(),
                settings.advertisedHost(), settings.maxFrameSize(), settings.connectTimeout(), settings.group(),
                settings.tls(), settings.limits()), wire, refusals, this);
        this.originator = new ChainOriginator(settings.name(), refusals, transport::send);
        settings.functions().fetchWith(this::fetchFunction);
        settings.functions().countRefusalsIn(transport.refusals());
    }

    /**
     * Starts hop {@code hop} (after {@code path}) of a chain that this node originates, with all of
     * the chain's credit, and registers it; partial replies go to {@code sink}.
     */
    public ChainOriginator.Pending launch(String server, String serviceFunction, Object params,
                                          ChainingFunctionSource cf, ChainState state, Duration timeout, int hop,
                                          int maxHops, List<String> path, ChainOriginator.ReplySink sink) {
        ChainOriginator.Pending p = originator.start(timeout, sink);
        ChainHeader header = new ChainHeader(p.id(), p.secret(), name(), transport.advertisedHost(), transport.port(), hop,
                maxHops, path, List.of(), List.of(), serviceFunction, cf, Credit.ONE);
        forward(server, new ChainRequest(header, params, state, null)).whenComplete((v, e) -> {
            if (e != null) {
                Throwable cause = unwrap(e);
                originator.failLocally(p.id(), cause instanceof HopFailure f ? f
                        : new HopFailure(ErrorCode.HOP_UNREACHABLE, "cannot reach '" + server + "': " + cause, cause));
            }
        });
        return p;
    }

    /**
     * A plain call from this node ({@code serviceFunction} at {@code server}), waiting for its
     * result; for rpcc's own services (the repository). Throws the chain's {@code ChainException}.
     */
    public Object call(String server, String serviceFunction, Object params, Duration timeout) {
        ChainOriginator.Pending p = launch(server, serviceFunction, params, ChainingFunctionSource.NONE,
                ChainState.empty(), timeout, 1, 1, List.of(), (value, hop, host, bytes) -> { });
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

    /** Fetches the source of {@code ref} from the repository it names. */
    private ChainingFunctionSource fetchFunction(ChainingFunctionSource ref) {
        Object answer;
        try {
            answer = call(ref.repository(), RepositoryProtocol.GET, ref.id(), settings.connectTimeout());
        } catch (RuntimeException e) {
            String why = e instanceof io.rpcc.core.ChainException ce ? ce.remoteMessage() : e.toString();
            throw new HopFailure(ErrorCode.REPOSITORY_UNAVAILABLE, "cannot fetch chaining function " + ref.id()
                    + " from repository '" + ref.repository() + "': " + why, e);
        }
        if (answer == null) {
            throw new HopFailure(ErrorCode.FUNCTION_NOT_FOUND, "repository '" + ref.repository()
                    + "' has no chaining function " + ref.id());
        }
        if (!(answer instanceof List<?> parts) || parts.size() != 2 || !(parts.get(0) instanceof String lang)
                || !(parts.get(1) instanceof String source)) {
            throw new HopFailure(ErrorCode.REPOSITORY_UNAVAILABLE, "repository '" + ref.repository()
                    + "' answered " + answer + " for " + ref.id());
        }
        ChainingFunctionSource full = ChainingFunctionSource.of(FunctionLanguage.valueOf(lang), source);
        if (!full.id().equals(ref.id())) {
            throw new HopFailure(ErrorCode.FUNCTION_NOT_FOUND, "repository '" + ref.repository()
                    + "' returned another function for " + ref.id());
        }
        return full;
    }

    /** Starts listening; returns the bound address. */
    public InetSocketAddress start() {
        return transport.start();
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

    /** The reply streams of hops running here that wait for or hold room in their originators' windows. */
    public ReplyStreams replyStreams() {
        return replyStreams;
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
     * connection) and writes the frame. Fails with a {@link HopFailure}: unknown server, unreachable
     * server, or a request that cannot be serialized.
     */
    public CompletableFuture<Void> forward(String server, ChainRequest request) {
        InetSocketAddress address;
        try {
            address = settings.resolver().resolve(server).orElse(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new HopFailure(ErrorCode.UNKNOWN_SERVER, "resolving server '" + server
                    + "' failed: " + e, e));
        }
        if (address == null) {
            return CompletableFuture.failedFuture(new HopFailure(ErrorCode.UNKNOWN_SERVER, "no address for server '"
                    + server + "' (name resolver: " + settings.resolver() + ")"));
        }
        return transport.send(server, address, request);
    }

    /**
     * Sends a chain's result, with {@code credit}, to its originator. Reports a failure (with the
     * same credit) instead if the result cannot be sent.
     */
    public void sendResult(ChainHeader h, List<String> path, List<ConsoleLine> console, List<HopTiming> timings,
                           Object value, Credit credit) {
        ChainResultFrame frame = new ChainResultFrame(h.chainId(), h.secret(), path, console, timings, value, credit, null);
        toOrigin(h, frame).whenComplete((v, e) -> {
            if (e != null && unwrap(e) instanceof HopFailure f && !f.code().unreachable()) {
                sendFailure(h, f, path, console, timings, credit);
            }
        });
    }

    /**
     * Reports a failure of the hop described by {@code h}, at this node, to the chain's originator,
     * returning {@code credit} with it.
     */
    public void sendFailure(ChainHeader h, HopFailure f, List<String> path, List<ConsoleLine> console,
                            List<HopTiming> timings, Credit credit) {
        ChainFailure failure = new ChainFailure(f.exceptionName(), f.getMessage(), name(), h.hop(), path, f.details(),
                console, timings);
        toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), failure, credit)).whenComplete((v, e) -> {
            if (e != null && unwrap(e) instanceof HopFailure tooBig && !tooBig.code().unreachable()) {
                // The console, details or message made the error too large: send it without them,
                // and, if even that does not fit, with only its start and no path.
                ChainFailure lean = new ChainFailure(truncate(f.exceptionName(), 512), truncate(f.getMessage(), 4096),
                        name(), h.hop(), path, List.of(), List.of(), List.of());
                toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), lean, credit)).whenComplete((v2, e2) -> {
                    if (e2 != null && unwrap(e2) instanceof HopFailure again && !again.code().unreachable()) {
                        ChainFailure bare = new ChainFailure(truncate(f.exceptionName(), 128),
                                truncate(f.getMessage(), 256), name(), h.hop(), List.of(), List.of(), List.of(), List.of());
                        toOrigin(h, new ChainErrorFrame(h.chainId(), h.secret(), f.code(), bare, credit));
                    }
                });
            }
        });
    }

    /** {@code s} cut to at most {@code max} characters, marked as cut. */
    private static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max - 20) + "... (truncated)";
    }

    private CompletableFuture<Void> toOrigin(ChainHeader h, Object frame) {
        InetSocketAddress origin = originAddress(h);
        return transport.send(h.origin(), origin, frame)
                .whenComplete((v, e) -> {
                    if (e != null && unwrap(e) instanceof HopFailure f && f.code().unreachable()) {
                        unreachableOrigins.warn(origin, "node '{}' cannot reach originator '{}' of chain {}#{}: {}", name(), h.origin(),
                                h.origin(), h.chainId(), f.getMessage());
                    }
                });
    }

    /**
     * Where the originator of {@code h} is reached: through this node's resolver if it knows the
     * originator's name (so that a testbed or a NAT can route the way back), else at the address the
     * originator advertised in the chain.
     */
    public InetSocketAddress originAddress(ChainHeader h) {
        try {
            var known = settings.resolver().resolve(h.origin());
            if (known.isPresent()) {
                return known.get();
            }
        } catch (RuntimeException e) {
            // fall back to the advertised address
        }
        return new InetSocketAddress(h.originHost(), h.originPort());
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
        requests.onRequest(this, request, System.nanoTime());
    }

    @Override
    public void onResult(ChainResultFrame result) {
        originator.onResult(result);
    }

    @Override
    public void onError(ChainErrorFrame error) {
        originator.onError(withTypeName(error));
    }

    @Override
    public void onReply(ReplyFrame reply) {
        originator.onReply(reply);
    }

    @Override
    public void onWindowUpdate(WindowUpdateFrame update, Channel from) {
        if (!update.grant()) {
            originator.onWindowUpdate(update, from);
        } else if (!replyStreams.grant(update.chainId(), update.secret(), update.hop(), update.replies(), update.bytes())) {
            // the stream has ended: the room goes back to the originator
            transport.send(from, new WindowUpdateFrame(update.chainId(), update.secret(), update.hop(), update.host(),
                    false, update.replies(), update.bytes(), 0));
        }
    }

    @Override
    public void onQuiet(QuietFrame quiet) {
        originator.onQuiet(quiet);
    }

    private static final Pattern UNKNOWN_TYPE_ID = Pattern.compile("type id (\\d+) is not registered on this node");

    /**
     * A receiver that did not register a type knows only its id; the originator usually registered
     * it, so it can name the class.
     */
    private ChainErrorFrame withTypeName(ChainErrorFrame error) {
        ChainFailure f = error.failure();
        Matcher m = f.message() == null ? null : UNKNOWN_TYPE_ID.matcher(f.message());
        if (m == null || !m.find()) {
            return error;
        }
        Class<?> type = settings.types().typeOf(Integer.parseInt(m.group(1)));
        if (type == null) {
            return error;
        }
        String message = f.message().replace(m.group(), "type id " + m.group(1) + " (" + type.getName()
                + " at the originator) is not registered on node '" + f.host() + "'");
        return new ChainErrorFrame(error.chainId(), error.secret(), error.code(), new ChainFailure(f.exceptionName(), message, f.host(),
                f.hop(), f.path(), f.details(), f.console(), f.timings()), error.credit());
    }

    private static void rejectRequest(Node node, ChainRequest request, long arrivedNanos) {
        ChainHeader h = request.header();
        node.executor().execute(() -> node.sendFailure(h, new HopFailure(ErrorCode.UNKNOWN_SERVICE_FUNCTION, "node '"
                + node.name() + "' is a client and hosts no service functions (asked for '" + h.serviceFunction()
                + "')"), node.pathThrough(h), h.console(), h.timings(), h.credit()));
    }

    @Override
    public void close() {
        transport.close();
    }
}
