package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NodeClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server that drains delivers what its hops hand on: a hop is not done when its code returns but
 * when the frame that ends it (the chain's result or failure, or the request for the next hop) is
 * written, which may first need a connection and its handshake. And a server closed while a hop runs
 * leaves nothing broken for the nodes after it, though the abandoned hop's thread runs on.
 */
class ShutdownDeliveryTest {
    /** How long the slow service runs; the abandoned hop's thread goes on this long after a close. */
    private static final long SLOW_MS = 500;
    /** How long a slow peer holds back the first bytes of a connection it accepts (the HELLO). */
    private static final long HANDSHAKE_DELAY_MS = 400;
    /** Far longer than a test waits: a chain that hangs fails the test with {@link #PROMPTLY_S}. */
    private static final Duration CHAIN_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration GRACE = Duration.ofSeconds(20);
    private static final long PROMPTLY_S = 15;

    @Test
    void aDrainingServerWaitsUntilTheResultOfItsLastHopIsWritten() throws Exception {
        try (Cluster cluster = new Cluster()) {
            CountDownLatch entered = new CountDownLatch(1);
            RpccServer server = slowServer(cluster, "s1", entered);
            // the server's connection back to the client (for the result) takes a while to handshake
            RpccClient client = cluster.client(b -> b.timeout(CHAIN_TIMEOUT).pipelineCustomizer(
                    ShutdownDeliveryTest::slowToAccept));
            CompletableFuture<ChainResult> running = client.call("s1", "slow", null);
            assertTrue(entered.await(PROMPTLY_S, TimeUnit.SECONDS), "the hop started");
            server.shutdown(GRACE);
            assertEquals("done", running.get(PROMPTLY_S, TimeUnit.SECONDS).value(),
                    "the result was written before the server closed its connections");
            assertEquals(0, server.hopsInFlight());
        }
    }

    @Test
    void aDrainingServerWaitsUntilItsLastHopHasHandedTheChainOn() throws Exception {
        try (Cluster cluster = new Cluster()) {
            CountDownLatch entered = new CountDownLatch(1);
            RpccServer first = slowServer(cluster, "first", entered);
            // the first server's connection to the next one takes a while to handshake
            cluster.server("next", b -> b.service("echo", p -> p).pipelineCustomizer(ShutdownDeliveryTest::slowToAccept));
            RpccClient client = cluster.client(b -> b.timeout(CHAIN_TIMEOUT));
            CompletableFuture<ChainResult> running = client.startChain(ChainCall.to("first", "slow")
                    .chainingFunction(ChainingFunctionSource.java("""
                            import io.rpcc.core.*;
                            public class ThenNext implements ChainingFunction {
                                public NextHop apply(ChainState state, Object result) {
                                    return state.contains("at-next") ? NextHop.end(result)
                                            : NextHop.call("next", "echo", result + " and echoed", state.with("at-next", true));
                                }
                            }
                            """)));
            assertTrue(entered.await(PROMPTLY_S, TimeUnit.SECONDS), "the hop started");
            first.shutdown(GRACE);
            assertEquals("done and echoed", running.get(PROMPTLY_S, TimeUnit.SECONDS).value(),
                    "the request for the next hop was written before the first server closed its connections");
            assertEquals(0, first.hopsInFlight());
        }
    }

    @Test
    void serversAfterOneClosedWithAHopRunningStillDeliverTheirResults() throws Exception {
        round(Duration.ZERO, false); // closes s1 with the hop running: the hop is abandoned, its thread runs on
        round(GRACE, true); // a new s1 and client in the same JVM: the hop finishes and its result arrives
        round(GRACE, true);
    }

    @Test
    void aServerClosedWhileTheClientStaysOpenLeavesTheNextServerWorking() throws Exception {
        try (Cluster cluster = new Cluster()) {
            RpccClient client = cluster.client(b -> b.timeout(CHAIN_TIMEOUT));
            for (int i = 0; i < 2; i++) {
                CountDownLatch entered = new CountDownLatch(1);
                RpccServer server = slowServer(cluster, "s" + i, entered);
                CompletableFuture<ChainResult> running = client.call(server.name(), "slow", null);
                assertTrue(entered.await(PROMPTLY_S, TimeUnit.SECONDS), "the hop started");
                server.close();
                assertInstanceOf(NodeClosedException.class, failureOf(running));
            }
            RpccServer last = slowServer(cluster, "last", new CountDownLatch(1));
            assertEquals("done", client.call(last.name(), "slow", null).get(PROMPTLY_S, TimeUnit.SECONDS).value());
        }
    }

    /**
     * A server {@code s1} with a slow service and a client: a call, then, once the service runs, a
     * shutdown with {@code grace}; the call's result arrives if {@code finishes}, else it fails with a
     * {@link NodeClosedException}. Every node of the round is closed at its end.
     */
    private static void round(Duration grace, boolean finishes) throws Exception {
        try (Cluster cluster = new Cluster()) {
            CountDownLatch entered = new CountDownLatch(1);
            RpccServer server = slowServer(cluster, "s1", entered);
            RpccClient client = cluster.client(b -> b.timeout(CHAIN_TIMEOUT));
            CompletableFuture<ChainResult> running = client.call("s1", "slow", null);
            assertTrue(entered.await(PROMPTLY_S, TimeUnit.SECONDS), "the hop started");
            server.shutdown(grace);
            if (finishes) {
                assertEquals("done", running.get(PROMPTLY_S, TimeUnit.SECONDS).value());
            } else {
                assertInstanceOf(NodeClosedException.class, failureOf(running));
            }
        }
    }

    private static RpccServer slowServer(Cluster cluster, String name, CountDownLatch entered) {
        return cluster.server(name, b -> b.service("slow", p -> {
            entered.countDown();
            Thread.sleep(SLOW_MS);
            return "done";
        }));
    }

    /** Makes every connection this node accepts slow to handshake. */
    private static void slowToAccept(ChannelPipeline p) {
        if (p.channel().parent() != null) {
            p.addBefore("frames", "slow-handshake", new HoldFirstRead());
        }
    }

    /**
     * Holds back what a connection reads first (the peer's HELLO, and anything read with it) for
     * {@link #HANDSHAKE_DELAY_MS}, reading nothing more meanwhile; passes the rest on at once.
     */
    private static final class HoldFirstRead extends ChannelInboundHandlerAdapter {
        private final List<Object> held = new ArrayList<>(); // event loop only
        private boolean holding;
        private boolean released;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (released) {
                ctx.fireChannelRead(msg);
                return;
            }
            held.add(msg);
            if (!holding) {
                holding = true;
                ctx.channel().config().setAutoRead(false);
                ctx.executor().schedule(() -> release(ctx), HANDSHAKE_DELAY_MS, TimeUnit.MILLISECONDS);
            }
        }

        private void release(ChannelHandlerContext ctx) {
            released = true;
            for (Object msg : held) {
                if (ctx.channel().isActive()) {
                    ctx.fireChannelRead(msg);
                } else {
                    ReferenceCountUtil.release(msg);
                }
            }
            held.clear();
            ctx.fireChannelReadComplete();
            ctx.channel().config().setAutoRead(true);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            held.forEach(ReferenceCountUtil::release);
            held.clear();
        }
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(PROMPTLY_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the call completed normally");
    }
}
