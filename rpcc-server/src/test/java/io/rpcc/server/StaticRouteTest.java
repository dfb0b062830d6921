package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.FrameTooLargeException;
import io.rpcc.core.HopLimitExceededException;
import io.rpcc.core.HopPath;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.MalformedRoutes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A static route travels in the chain state as one array that every hop passes on undecoded
 * ({@link StaticRoute#ROUTE}: 4 bytes of offset per hop and one entry per distinct server and service
 * function), so a hop's request is the same size at every hop of a long route, and what a hop reads
 * from it is the one entry it calls next. A malformed route, which only a hostile or broken originator
 * or hop sends, fails its hop with the typed error of a chaining function that throws, and the nodes
 * keep serving; one too large for the next node's frames is refused at the sender as any oversized
 * state is.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StaticRouteTest {
    static final String[] SERVERS = {"s1", "s2", "s3"};
    /** REQUEST's frame type byte (after the 4-byte length and the version byte). */
    static final int REQUEST = 2;
    static final int MAX_FRAME = 64 * 1024;
    /** Sizes of the REQUEST frames the servers wrote, in order, while {@link #recording}. */
    static final List<Integer> requests = Collections.synchronizedList(new ArrayList<>());
    static volatile boolean recording;
    static Cluster cluster;
    static RpccClient client;

    /** Records the size of every REQUEST frame a server writes (one frame per write, before any TLS). */
    static final class RequestSizes extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (recording && msg instanceof ByteBuf b && b.readableBytes() > 6 && b.getByte(b.readerIndex() + 5) == REQUEST) {
                requests.add(b.readableBytes());
            }
            super.write(ctx, msg, promise);
        }
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : SERVERS) {
            cluster.server(name, b -> b.maxFrameSize(MAX_FRAME).service("echo", p -> p)
                    .pipelineCustomizer(p -> p.addBefore("frames", "request-sizes", new RequestSizes())));
        }
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(120)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void serversStillServe() {
        assertEquals("still alive", client.runChain(ChainCall.along(route(5), "still alive")).value());
    }

    private static StaticRoute route(int hops) {
        List<StaticRoute.Hop> route = new ArrayList<>();
        for (int h = 1; h <= hops; h++) {
            route.add(StaticRoute.hop(SERVERS[h % SERVERS.length], "echo"));
        }
        return StaticRoute.of(route);
    }

    /**
     * The bound: once the path record is bounded (hop 33 on), the requests of a 300-hop route differ
     * in size by at most 48 bytes, whatever is left of the route (at hop 40, 260 hops; at hop 300,
     * none): what varies is the length of varints (hop numbers past 127, the route's next index past
     * 63, the carried timings' nanoseconds and the deadline's). The route's share of each request is
     * its array, {@code 5 + 4 × hops} bytes and an entry per distinct hop (here 3 of them), carried
     * whole (not two lists of 300 names, as before), and the rest (header, bounded path and timings,
     * the chaining function's text) is under 2 KiB.
     */
    @Test
    void aLongRoutesRequestIsTheSameSizeAtEveryHopWhateverIsLeftOfTheRoute() {
        int hops = 300;
        StaticRoute route = route(hops);
        int routeBytes = ((byte[]) route.initialState().get(StaticRoute.ROUTE)).length;
        assertEquals(5 + 4 * hops + 3 * (4 + 2 * 2 + 4 + 2 * 4), routeBytes, "3 entries: s1..s3 with echo");
        requests.clear();
        recording = true;
        ChainResult r;
        try {
            r = client.runChain(ChainCall.along(route, "payload"));
        } finally {
            recording = false;
        }
        assertEquals("payload", r.value());
        assertEquals(hops, r.hops());
        assertEquals(HopPath.MAX_ENTRIES, r.path().size());
        List<Integer> sizes;
        synchronized (requests) {
            sizes = List.copyOf(requests);
        }
        // the servers sent hops 2..300, one REQUEST each (the client sent hop 1)
        assertEquals(hops - 1, sizes.size(), sizes.toString());
        IntSummaryStatistics late = sizes.subList(40 - 2, sizes.size()).stream().mapToInt(Integer::intValue)
                .summaryStatistics();
        assertTrue(late.getMax() - late.getMin() <= 48, "hops 40.." + hops + ": " + late + " " + sizes);
        assertTrue(late.getMax() <= routeBytes + 2048, "route " + routeBytes + " bytes; requests " + late);
    }

    @Test
    void theHopLimitStopsALongRouteAsBefore() {
        HopLimitExceededException e = assertThrows(HopLimitExceededException.class,
                () -> client.runChain(ChainCall.along(route(300), "payload").maxHops(100)));
        assertEquals(ChainErrorCode.HOP_LIMIT_EXCEEDED, e.code());
    }

    @Test
    void aMalformedRouteFailsItsHopWithATypedErrorAndTheNodesKeepServing() {
        byte[] good = (byte[]) route(4).initialState().get(StaticRoute.ROUTE);
        List<byte[]> hostile = MalformedRoutes.of(good);
        for (byte[] route : hostile) {
            ChainingFunctionException e = assertThrows(ChainingFunctionException.class, () -> client.runChain(
                    ChainCall.to("s1", "echo").params("x").chainingFunction(StaticRoute.CHAINING_FUNCTION)
                            .state(ChainState.of(StaticRoute.ROUTE, route, StaticRoute.NEXT, 1))));
            assertEquals(ChainErrorCode.CHAINING_FUNCTION_FAILED, e.code());
            assertEquals("s1", e.host());
            assertEquals(1, e.hop());
            assertTrue(e.getMessage().contains("static route (rpcc.route) is malformed"), e.getMessage());
        }
        // the route's entries of the wrong type: as today, the hop fails the same way
        for (ChainState state : List.of(ChainState.empty(), ChainState.of(StaticRoute.ROUTE, List.of("s2"),
                StaticRoute.NEXT, 1), ChainState.of(StaticRoute.ROUTE, good, StaticRoute.NEXT, "1"))) {
            ChainingFunctionException e = assertThrows(ChainingFunctionException.class, () -> client.runChain(
                    ChainCall.to("s1", "echo").params("x").chainingFunction(StaticRoute.CHAINING_FUNCTION).state(state)));
            assertEquals("s1", e.host());
        }
        // too large for the next node's frames: refused at the sender, as any oversized state
        byte[] huge = new byte[MAX_FRAME + 1];
        System.arraycopy(good, 0, huge, 0, good.length);
        assertThrows(FrameTooLargeException.class, () -> client.runChain(ChainCall.to("s1", "echo").params("x")
                .chainingFunction(StaticRoute.CHAINING_FUNCTION).state(ChainState.of(StaticRoute.ROUTE, huge,
                        StaticRoute.NEXT, 1))));
    }
}
