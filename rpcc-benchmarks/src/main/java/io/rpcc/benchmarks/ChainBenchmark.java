package io.rpcc.benchmarks;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency of chains on loopback against plain request/response over the same transport:
 *
 * <ul>
 *   <li>{@code plainCall}: one request/response, client → s1 → client, no chaining function;</li>
 *   <li>{@code chain1Hop}: the same path with a chaining function that ends the chain at s1;</li>
 *   <li>{@code chain2Hops}: client → s1 → s2 → client, the chaining function runs at s1;</li>
 *   <li>{@code twoPlainCalls}: the same 2-hop chain in interactive mode (the client runs the
 *       chaining function between two plain requests client → s1 → client → s2 → client);</li>
 *   <li>{@code twoSequentialCalls}: two plain requests, {@code client.call(s1)} then
 *       {@code client.call(s2)}, no chaining function at all (the plain-RPC baseline over rpcc's
 *       transport);</li>
 *   <li>{@code multiReturn}: one call to s1 whose service function sends 16 partial replies
 *       ({@code preturn}, from a virtual thread it starts, so that it may wait for reply-window room
 *       under either executor) and returns; the client reads every reply and the end;</li>
 *   <li>{@code twoGrpcCalls}: two sequential gRPC-java unary calls to two gRPC servers with the
 *       same payload (byte-array marshallers, so no serializer cost on either side), the servers'
 *       executor matching {@link #serverExecutor}.</li>
 * </ul>
 *
 * All nodes run in the benchmark's JVM, so on loopback the chain's saving is one network crossing
 * per hop; on wide-area links (issue 5's testbed) that crossing dominates.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ChainBenchmark {
    static final ChainingFunctionSource END = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class End implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) { return NextHop.end(result); }
            }
            """);

    /** Partial replies per call in {@link #multiReturn}. */
    static final int REPLIES = 16;

    /** Bytes of payload in the parameters (and result). */
    @Param({"64"})
    public int payloadBytes;

    /**
     * Where servers run service and chaining functions: {@code virtual} (the default, a virtual
     * thread per hop; functions may block) or {@code direct} (on the event loop that read the
     * request, like gRPC's {@code directExecutor()}: only for functions that never block).
     */
    @Param({"virtual", "direct"})
    public String serverExecutor;

    /**
     * Which event loops the nodes use: {@code shared} (the default: every node of the JVM on rpcc's
     * shared loops, so which connection lands on which loop follows the order they were made in)
     * or {@code perNode} (the client and each server on a single loop of their own, as if each ran
     * in its own process: the placement no longer depends on that order).
     */
    @Param({"shared", "perNode"})
    public String eventLoops;

    /**
     * Whether the servers keep the outcomes of the hops they run for chains sent again
     * ({@code RpccServer.Builder.outcomeCache}): {@code on} (the default) or {@code off}.
     */
    @Param({"on"})
    public String outcomeCache;

    private final List<EventLoopGroup> ownLoops = new ArrayList<>();
    private final StaticNameResolver names = new StaticNameResolver();
    private RpccServer s1;
    private RpccServer s2;
    private RpccClient client;
    private String payload;
    private ChainCall plain;
    private ChainCall oneHop;
    private ChainCall twoHops;
    private ChainCall twoHopsInteractive;
    private GrpcEcho grpc1;
    private GrpcEcho grpc2;
    private byte[] payloadBytesArray;

    @Setup(Level.Trial)
    public void start() {
        s1 = server("s1");
        names.register("s1", s1.address());
        s2 = server("s2");
        names.register("s2", s2.address());
        client = RpccClient.builder().name("bench-client").resolver(names).eventLoopGroup(loops()).build().start();
        payload = "x".repeat(payloadBytes);
        plain = ChainCall.to("s1", "echo").params(payload);
        oneHop = plain.chainingFunction(END).state(ChainState.empty());
        StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "echo"));
        twoHops = ChainCall.along(route, payload).interactive(false);
        twoHopsInteractive = twoHops.interactive(true);
        boolean direct = serverExecutor.equals("direct");
        grpc1 = GrpcEcho.start(direct);
        grpc2 = GrpcEcho.start(direct);
        payloadBytesArray = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // compile the chaining functions before measuring
        plainCall();
        chain1Hop();
        chain2Hops();
        twoPlainCalls();
        twoSequentialCalls();
        twoGrpcCalls();
        multiReturn();
    }

    private RpccServer server(String name) {
        RpccServer.Builder b = RpccServer.builder(name).resolver(names).eventLoopGroup(loops()).service("echo", p -> p)
                .service("replies", p -> {
                    ChainContext.current().startVirtualThread(() -> {
                        for (int i = 0; i < REPLIES; i++) {
                            ChainContext.current().preturn(p);
                        }
                    });
                    return p;
                });
        if (serverExecutor.equals("direct")) {
            b.executor(Runnable::run);
        }
        if (outcomeCache.equals("off")) {
            b.outcomeCache(0, 0, Duration.ZERO);
        }
        return b.build().start();
    }

    /** A loop of the node's own ({@code perNode}), or {@code null}: rpcc's shared loops. */
    private EventLoopGroup loops() {
        if (eventLoops.equals("shared")) {
            return null;
        }
        EventLoopGroup own = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ownLoops.add(own);
        return own;
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        s1.close();
        s2.close();
        grpc1.close();
        grpc2.close();
        ownLoops.forEach(EventLoopGroup::shutdownGracefully);
    }

    @Benchmark
    public Object plainCall() {
        return client.runChain(plain).value();
    }

    @Benchmark
    public Object chain1Hop() {
        return client.runChain(oneHop).value();
    }

    @Benchmark
    public Object chain2Hops() {
        return client.runChain(twoHops).value();
    }

    @Benchmark
    public Object twoPlainCalls() {
        return client.runChain(twoHopsInteractive).value();
    }

    @Benchmark
    public Object twoSequentialCalls() {
        Object first = client.call("s1", "echo", payload).join().value();
        return client.call("s2", "echo", first).join().value();
    }

    @Benchmark
    public byte[] twoGrpcCalls() {
        return grpc2.call(grpc1.call(payloadBytesArray));
    }

    @Benchmark
    public int multiReturn() {
        ReplySet<String> replies = client.callWithReplies("s1", "replies", payload, String.class);
        int n = 0;
        while (replies.hasMore()) {
            replies.next();
            n++;
        }
        if (n != REPLIES || replies.isPartial()) {
            throw new IllegalStateException(n + " replies, error " + replies.error());
        }
        return n;
    }
}
