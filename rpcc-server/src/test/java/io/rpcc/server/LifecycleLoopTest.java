package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.testing.HostResources;
import io.rpcc.core.testing.PooledBuffers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Starting and closing many nodes leaves nothing behind: no thread (the shared event loops, the
 * timeout timer and the chaining-function threads stop with the last node), no file descriptor and
 * no pooled buffer, whether the nodes ran chains, were closed with chains in flight, or did nothing.
 */
class LifecycleLoopTest {
    private static final int PAIRS = 500; // a server and a client each: 1,000 nodes
    /** The most memory the buffer allocator held while nodes were open (shows the figure moves). */
    private static long peakBufferBytes;
    /** Two hops through the same server: compiles on the compiler pool, runs on a sandbox thread. */
    private static final ChainingFunctionSource TWICE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Twice implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return state.contains("again") ? NextHop.end(result)
                            : NextHop.call(ChainContext.current().node(), "echo", result, state.with("again", true));
                }
            }
            """);

    @Test
    void startingAndClosingAThousandNodesLeavesThreadsDescriptorsAndBuffersWhereTheyWere() throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        for (int i : new int[] {1, 3, 5, 7, 9}) { // each kind once: classes loaded, javac warm
            pair(names, i);
        }
        HostResources before = HostResources.now();
        PooledBuffers buffersBefore = PooledBuffers.now();

        for (int i = 0; i < PAIRS; i++) {
            pair(names, i);
        }

        // threads of closed event loops and pools exit a moment after the close: assertBackTo waits. The
        // slack is the JDK's: its virtual-thread scheduler starts carrier threads on demand (one per
        // core, and two helpers); rpcc's own threads, all named rpcc-..., must all be gone.
        HostResources after = HostResources.assertBackTo(before, Runtime.getRuntime().availableProcessors() + 2, 2,
                256L << 20);
        assertEquals(List.of(), HostResources.threadsNamed("rpcc-"), "rpcc's threads stop with its last node");
        // Netty's adaptive allocator keeps chunks it made for reuse (128-256 KiB here) in the magazines that
        // threads outside rpcc share, such as the virtual-thread carriers, which outlive the nodes: at one
        // moment of the loop they may have needed one chunk more than when the baseline was taken (1 run in 4).
        // Two chunks of slack over 2,000 nodes still catch a leak of 256 bytes per node.
        PooledBuffers buffersAfter = PooledBuffers.assertBackTo(buffersBefore, 512L << 10);
        System.out.println("lifecycle loop: " + 2 * PAIRS + " nodes; before " + before + " " + buffersBefore
                + "; after " + after + " " + buffersAfter + "; peak buffer memory while open " + peakBufferBytes);
        assertTrue(buffersBefore.usedDirectBytes() < 0 || peakBufferBytes > buffersBefore.usedDirectBytes()
                + buffersBefore.usedHeapBytes(), "the allocator's figures moved while nodes were open");
    }

    /** A server and a client, started, used in one of several ways (or not at all), closed. */
    private static void pair(StaticNameResolver names, int i) throws Exception {
        String name = "loop-" + i;
        CountDownLatch running = new CountDownLatch(1);
        RpccServer server = RpccServer.builder(name).resolver(names)
                .service("echo", p -> p)
                .service("replies", p -> {
                    for (int r = 0; r < 20; r++) {
                        ChainContext.current().preturn("reply " + r);
                    }
                    return "done";
                })
                .service("slow", p -> {
                    running.countDown();
                    Thread.sleep(200);
                    return "late";
                })
                .build().start();
        names.register(name, server.address());
        RpccClient client = RpccClient.builder().resolver(names).timeout(Duration.ofSeconds(20)).build().start();
        try {
            switch (i % 10) {
                case 1 -> assertEquals(i, client.call(name, "echo", i).get(20, TimeUnit.SECONDS).value());
                case 3 -> {
                    ReplySet<String> replies = client.callWithReplies(name, "replies", null, String.class);
                    assertEquals(20, replies.stream().count());
                    assertEquals("done", replies.result().get(20, TimeUnit.SECONDS).value());
                    PooledBuffers open = PooledBuffers.now();
                    peakBufferBytes = Math.max(peakBufferBytes, open.usedDirectBytes() + open.usedHeapBytes());
                }
                case 5 -> { // closed with a chain in flight: the chain ends at once
                    CompletableFuture<ChainResult> f = client.call(name, "slow", null);
                    client.close();
                    try {
                        f.get(20, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        assertInstanceOf(NodeClosedException.class, e.getCause());
                    }
                }
                case 7 -> { // the server closed under a running hop: its originator hears of it
                    CompletableFuture<ChainResult> f = client.call(name, "slow", null);
                    assertTrue(running.await(20, TimeUnit.SECONDS));
                    server.close();
                    try {
                        f.get(20, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        assertInstanceOf(NodeClosedException.class, e.getCause());
                    }
                }
                case 9 -> {
                    if (i % 100 == 9) { // a chaining function: compiler pool, sandbox thread, watchdog
                        assertEquals(List.of(i), client.runChain(ChainCall.to(name, "echo").params(List.of(i))
                                .chainingFunction(TWICE).state(ChainState.empty())).value());
                    }
                }
                default -> { } // started and closed, never used
            }
        } finally {
            client.close();
            server.close();
            names.unregister(name);
        }
        assertTrue(client.chainsInFlight() == 0, "no chain left in the closed client's table");
    }
}
