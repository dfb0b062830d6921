package io.rpcc.core;

import io.netty.channel.EventLoopGroup;
import io.rpcc.core.internal.chain.DefaultExecutor;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.function.FunctionRuntime;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Settings shared by every node, client or server: name, listening address, name resolver,
 * serializable types, executor and limits. See {@code RpccServer.builder} and
 * {@code RpccClient.builder}.
 *
 * @param <B> the concrete builder
 */
public abstract class NodeBuilder<B extends NodeBuilder<B>> {
    /** Default largest frame: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;
    /** Default hop limit (paper section 6). */
    public static final int DEFAULT_MAX_HOPS = 2000;

    private String name;
    private InetSocketAddress bind = new InetSocketAddress("127.0.0.1", 0);
    private String advertisedHost;
    private int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private EventLoopGroup eventLoopGroup;
    private NameResolver resolver = new StaticNameResolver();
    private TypeRegistry types = TypeRegistry.empty();
    private Executor executor;
    private int maxHops = DEFAULT_MAX_HOPS;
    private Duration replyWriteTimeout = Duration.ofSeconds(30);
    private SandboxLimits sandbox = SandboxLimits.DEFAULT;
    private int functionCacheSize = 256;
    private NodeTls tls;
    private int maxFunctionSourceChars = FunctionRuntime.DEFAULT_MAX_SOURCE_CHARS;
    private int maxQueuedCompiles = FunctionRuntime.DEFAULT_MAX_QUEUED_COMPILES;

    /** A builder for a node named {@code name}. */
    protected NodeBuilder(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The node's name, unique among the nodes that talk to each other. */
    public B name(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return self();
    }

    /** Listens on {@code address} (default {@code 127.0.0.1:0}: loopback, any free port). */
    public B listen(InetSocketAddress address) {
        this.bind = Objects.requireNonNull(address, "address");
        return self();
    }

    /** Listens on {@code port} of {@code host}. */
    public B listen(String host, int port) {
        return listen(new InetSocketAddress(host, port));
    }

    /**
     * The host other nodes use to reach this one (sent to the chain's hops so the last one can
     * reach the originator). Default: the bound address, or the local host's address if bound to
     * the wildcard address.
     */
    public B advertisedHost(String host) {
        this.advertisedHost = host;
        return self();
    }

    /** The largest frame this node sends or accepts (default 16 MiB). */
    public B maxFrameSize(int bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("maxFrameSize must be at least 1024 bytes, got " + bytes);
        }
        this.maxFrameSize = bytes;
        return self();
    }

    /** How long connecting to a peer (and its handshake) may take (default 5 s). */
    public B connectTimeout(Duration timeout) {
        this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /** Netty event loops to use (default: a group shared by all nodes in the JVM). Not shut down by the node. */
    public B eventLoopGroup(EventLoopGroup group) {
        this.eventLoopGroup = group;
        return self();
    }

    /** Turns server names into addresses (default: an empty {@link StaticNameResolver}). */
    public B resolver(NameResolver resolver) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        return self();
    }

    /** The user's serializable types; register the same ones on every node. */
    public B types(TypeRegistry types) {
        this.types = Objects.requireNonNull(types, "types");
        return self();
    }

    /**
     * Runs service functions, chaining functions and completion callbacks (default: a virtual
     * thread per task, except that a hop with a sandboxed Java chaining function starts on a
     * platform thread, which the sandbox needs). Never an event loop. An executor set here is
     * used for every hop as given.
     */
    public B executor(Executor executor) {
        this.executor = executor;
        return self();
    }

    /** The hop limit this node enforces (default 2000). */
    public B maxHops(int maxHops) {
        if (maxHops < 1) {
            throw new IllegalArgumentException("maxHops must be at least 1, got " + maxHops);
        }
        this.maxHops = maxHops;
        return self();
    }

    /**
     * How long {@code preturn} waits when the originator does not read its partial replies fast
     * enough (its buffer is full) before it throws {@link FlowControlException} (default 30 s).
     */
    public B replyWriteTimeout(Duration timeout) {
        this.replyWriteTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /**
     * Runs chaining functions in the sandbox with these limits (the default: {@link SandboxLimits#DEFAULT}).
     */
    public B sandbox(SandboxLimits limits) {
        this.sandbox = Objects.requireNonNull(limits, "limits");
        return self();
    }

    /**
     * Runs chaining functions without the sandbox: with the node's full privileges and no resource
     * limits. Only for chains from trusted clients, e.g. to measure the sandbox's cost.
     */
    public B withoutSandbox() {
        this.sandbox = null;
        return self();
    }

    /** How many compiled chaining functions the node keeps (default 256, least recently used evicted). */
    public B functionCacheSize(int functions) {
        if (functions < 1) {
            throw new IllegalArgumentException("functionCacheSize must be positive, got " + functions);
        }
        this.functionCacheSize = functions;
        return self();
    }

    /**
     * Runs mutual TLS on every connection of this node, inbound and outbound, with this identity and
     * these trusted CAs (default: plaintext). Every node that talks to this one needs TLS too. The
     * certificate must carry the node's name (see {@link NodeTls} for the rule), or the node does not
     * start; peers are refused unless their certificates are signed by a trusted CA, valid, and carry
     * the names they claim.
     */
    public B tls(NodeTls tls) {
        this.tls = Objects.requireNonNull(tls, "tls");
        return self();
    }

    /**
     * The largest chaining-function source this node compiles, in chars (default 65,536); a larger
     * one fails its chain with a {@link ChainingFunctionCompileException} saying so.
     */
    public B maxFunctionSourceChars(int chars) {
        if (chars <= 0) {
            throw new IllegalArgumentException("maxFunctionSourceChars must be positive, got " + chars);
        }
        this.maxFunctionSourceChars = chars;
        return self();
    }

    /**
     * How many chaining functions this node compiles or lets wait for compilation at once (default
     * 16); while that many are, a chain whose function is not compiled yet fails at once with a
     * {@link ChainingFunctionCompileException} (retry later), so that a flood of new functions does
     * not delay chains whose functions are compiled.
     */
    public B maxQueuedCompiles(int compiles) {
        if (compiles <= 0) {
            throw new IllegalArgumentException("maxQueuedCompiles must be positive, got " + compiles);
        }
        this.maxQueuedCompiles = compiles;
        return self();
    }

    /** The configured hop limit. */
    protected int maxHops() {
        return maxHops;
    }

    /** The node's name. */
    protected String name() {
        return name;
    }

    /** The settings for the node runtime. */
    protected Node.Settings settings() {
        Executor ex = executor != null ? executor : new DefaultExecutor(name);
        return new Node.Settings(name, bind, advertisedHost, maxFrameSize, connectTimeout, eventLoopGroup, resolver,
                types, ex, FunctionRuntime.forNode(types, sandbox, functionCacheSize,
                maxFunctionSourceChars, maxQueuedCompiles), maxHops, replyWriteTimeout, tls);
    }
}
