package io.rpcc.benchmarks;

import io.netty.buffer.ByteBuf;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainState;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a forwarding hop of a static route does with its request, on one thread and no network, by
 * the route's length ({@code hops}): encode the REQUEST (header, payload, the route's state), decode
 * it, and take the route's step ({@link StaticRoute#next}, as the engine does for rpcc's own chaining
 * function) at a hop in the middle of the route. A hop's cost should not depend on {@code hops}
 * (issue 27, item 5): the route travels as one array that a hop passes on undecoded.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StaticRouteHopBenchmark {
    private static final NodeAddress CLIENT = new NodeAddress("bench-client", "127.0.0.1", 4000);
    private static final String[] SERVERS = {"s1", "s2", "s3", "s4", "s5"};

    /** The route's length. */
    @Param({"2", "100"})
    public int hops;

    private final WireFormat wire = new WireFormat(new Serialization(TypeRegistry.empty()));
    private ChainHeader header;
    private ChainState state;

    @Setup
    public void setUp() {
        List<StaticRoute.Hop> route = new ArrayList<>();
        for (int h = 1; h <= hops; h++) {
            route.add(StaticRoute.hop(SERVERS[h % SERVERS.length], "echo"));
        }
        state = StaticRoute.of(route).initialState().with(StaticRoute.NEXT, hops / 2);
        header = new ChainHeader(new ChainIdentity(42, ChainSecret.random(), CLIENT, 1),
                new ChainSoFar(2, List.of("s1"), List.of(), List.of(new HopTiming(1, "s1", "echo", 1, 2, 3, 4, "s1")),
                        Metadata.empty()), "echo", StaticRoute.CHAINING_FUNCTION, Credit.ONE,
                new ReturnRoute(CLIENT, List.of(), BranchId.root()),
                new ChainLimits(2000, ChainHeader.NO_DEADLINE, HeartbeatBudget.NONE));
    }

    /** Encode, decode, step: what a hop of a static route does with the route. */
    @Benchmark
    public NextHop encodeDecodeStep() {
        ByteBuf frame = wire.encode(new ChainRequest(header, "payload", state, null), 1 << 20);
        ChainRequest got;
        try {
            got = (ChainRequest) wire.decode(frame.skipBytes(4));
        } finally {
            frame.release();
        }
        return StaticRoute.next(got.state(), got.params());
    }
}
