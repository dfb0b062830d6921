package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.atomic.TxVar;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An originator that restarts under the same name and port after deciding COMMIT: the new run does
 * not know the transaction and answers a participant's QUERY with a presumed ABORT. The participant
 * that missed the COMMIT (b, whose connections drop the originator's DECIDEs) must not take that
 * abort as the outcome while its peers committed: it asks them first and commits. The in-doubt window
 * is 20 s, so b first asks its originator 4 s after its hop, by when the new run is up and answers.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicRestartedOriginatorTest {
    final Map<String, TxVar<Long>> vars = Map.of(
            "a", TxVar.of("restart.a", 100L), "b", TxVar.of("restart.b", 100L), "c", TxVar.of("restart.c", 100L));
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("a", "add"), StaticRoute.hop("b", "add"),
            StaticRoute.hop("c", "add"));
    Cluster cluster;
    final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    final DropTheCommit dropAtB = new DropTheCommit();

    /**
     * At b: drops the originator's COMMIT (b never hears it), and holds back the peers' answers until an
     * ABORT from the originator (the restarted run's presumed abort) has passed, so that b meets the
     * presumed abort before it could have learned the outcome any other way.
     */
    static final class DropTheCommit extends io.netty.channel.ChannelInboundHandlerAdapter {
        final java.util.concurrent.atomic.AtomicInteger dropped = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger peerAnswersHeldBack = new java.util.concurrent.atomic.AtomicInteger();
        volatile boolean presumedAbortSeen;

        java.util.function.Consumer<io.netty.channel.ChannelPipeline> customizer() {
            return p -> p.addBefore("rpcc", "drop-the-commit", this);
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.rpcc.core.internal.wire.TxFrames.Decide d) {
                if (!d.fromPeer() && d.commit()) {
                    dropped.incrementAndGet();
                    io.netty.util.ReferenceCountUtil.release(msg);
                    return;
                }
                if (!d.fromPeer()) {
                    presumedAbortSeen = true;
                } else if (!presumedAbortSeen) {
                    peerAnswersHeldBack.incrementAndGet();
                    io.netty.util.ReferenceCountUtil.release(msg);
                    return;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }

    @BeforeEach
    void start() {
        System.setProperty("rpcc.atomic.inDoubtMillis", "20000");
        try {
            cluster = new Cluster();
            for (String name : new String[] {"a", "b", "c"}) {
                TxVar<Long> v = vars.get(name);
                servers.put(name, cluster.server(name, s -> (name.equals("b") ? s.pipelineCustomizer(dropAtB.customizer()) : s)
                        .service("add", p -> {
                            v.set(v.get() + (Long) p);
                            return p;
                        })));
            }
        } finally {
            System.clearProperty("rpcc.atomic.inDoubtMillis");
        }
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private RpccClient origin(int port, Blackout blackout) {
        return cluster.client(c -> c.name("origin-restarting").listen("127.0.0.1", port)
                .pipelineCustomizer(blackout.customizer())
                .heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    /** The originator started again on {@code port}, once the closed run's socket let go of it. */
    private RpccClient restart(int port) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return origin(port, new Blackout());
            } catch (IllegalStateException busy) {
                if (System.nanoTime() > until || !String.valueOf(busy.getMessage()).contains("cannot listen")) {
                    throw busy;
                }
                Thread.sleep(50);
            }
        }
    }

    @Test
    void aPresumedAbortFromTheRestartedOriginatorLosesToAPeersCommit() throws Exception {
        int port = freePort();
        Blackout first = new Blackout();
        RpccClient client = origin(port, first);
        client.startChain(ChainCall.along(ROUTE, 5L).atomic().timeout(Duration.ofSeconds(60)));
        AtomicOriginatorLostTest.eventually(() -> vars.get("a").get() == 105L && vars.get("c").get() == 105L,
                "a and c applied the originator's COMMIT");
        AtomicOriginatorLostTest.eventually(() -> dropAtB.dropped.get() >= 1, "b was sent the DECIDE (and dropped it)");
        first.cut();
        client.close(); // the originator dies with its decisions...
        RpccClient restarted = restart(port); // ...and starts again, same name, same port
        AtomicOriginatorLostTest.eventually(() -> servers.get("b").transactions().locksHeld() == 0,
                "b ended its transaction");
        assertEquals(105L, vars.get("b").get(), "b committed as a and c did: the restarted originator's presumed "
                + "abort waited for the peers' answers");
        assertEquals(0, servers.get("b").transactions().activeParticipants());
        org.junit.jupiter.api.Assertions.assertTrue(dropAtB.presumedAbortSeen, "b met the restarted originator's presumed abort");
        restarted.close();
    }
}
