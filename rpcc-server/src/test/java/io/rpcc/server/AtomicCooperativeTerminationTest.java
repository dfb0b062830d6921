package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.testing.RawPeer;
import io.rpcc.server.atomic.TxVar;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cooperative termination: a participant of an atomic chain whose originator died while sending its
 * decision asks the other participants it knows (the hosts before it on the chain's trail and those
 * it sent the chain on to), and applies the decision one of them applied. Three servers a, b, c run
 * the hops of the chain a → b → c; one of them never hears the originator's DECIDE (its connection
 * drops it, as a cut link would), then the client dies. The in-doubt window is 1.5 s: without a
 * peer's answer the participant would abort on its own while the others committed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicCooperativeTerminationTest {
    /** Each server's variable (new for each test). */
    final Map<String, TxVar<Long>> vars = Map.of(
            "a", TxVar.of("coop.a", 100L), "b", TxVar.of("coop.b", 100L), "c", TxVar.of("coop.c", 100L));
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("a", "add"), StaticRoute.hop("b", "add"),
            StaticRoute.hop("c", "add"));
    Cluster cluster;
    final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    final Map<String, DropDecides> drops = new ConcurrentHashMap<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean cWaits;

    /**
     * Drops every DECIDE of an originator that a server's connections read, once armed (a peer's
     * answer, marked so, still goes through): the server never hears the originator's decision.
     */
    static final class DropDecides extends ChannelInboundHandlerAdapter {
        volatile boolean armed;
        final AtomicInteger dropped = new AtomicInteger();

        Consumer<ChannelPipeline> customizer() {
            return p -> p.addBefore("rpcc", "drop-decides", this);
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (armed && msg instanceof TxFrames.Decide d && !d.fromPeer()) {
                dropped.incrementAndGet();
                ReferenceCountUtil.release(msg);
                return;
            }
            ctx.fireChannelRead(msg);
        }
    }

    @BeforeEach
    void start() {
        System.setProperty("rpcc.atomic.inDoubtMillis", "1500");
        try {
            cluster = new Cluster();
            for (String name : new String[] {"a", "b", "c"}) {
                DropDecides drop = new DropDecides();
                drops.put(name, drop);
                TxVar<Long> v = vars.get(name);
                servers.put(name, cluster.server(name, s -> s.pipelineCustomizer(drop.customizer())
                        .service("add", p -> {
                            v.set(v.get() + (Long) p);
                            if (name.equals("c") && cWaits) {
                                entered.countDown();
                                release.await(60, TimeUnit.SECONDS);
                            }
                            return p;
                        })));
            }
        } finally {
            System.clearProperty("rpcc.atomic.inDoubtMillis");
        }
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        cluster.close();
    }

    private RpccClient client(Blackout dead) {
        return cluster.client(c -> c.pipelineCustomizer(dead.customizer())
                .heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    /**
     * The chain commits; {@code missing} never hears the originator's DECIDE (every one of them is
     * dropped at its connections); the client dies as soon as the others applied the COMMIT.
     * {@code missing} commits too: it can only have learned it from a peer (without one it would
     * abort when the in-doubt window ends, 1.5 s after the client died).
     */
    private void commitMissedBy(String missing) throws Exception {
        drops.get(missing).armed = true;
        Blackout dead = new Blackout();
        RpccClient client = client(dead);
        client.startChain(ChainCall.along(ROUTE, 5L).atomic().timeout(Duration.ofSeconds(30))); // (completes when
        // every voter acknowledged: never, here)
        for (String name : vars.keySet()) {
            if (!name.equals(missing)) {
                AtomicOriginatorLostTest.eventually(() -> vars.get(name).get() == 105L,
                        name + " applied the originator's COMMIT");
            }
        }
        AtomicOriginatorLostTest.eventually(() -> drops.get(missing).dropped.get() >= 1,
                missing + " was sent the DECIDE (and dropped it)");
        dead.cut(); // the originator goes silent
        client.close(); // and its process ends: its port is closed
        AtomicOriginatorLostTest.eventually(() -> servers.get(missing).transactions().locksHeld() == 0,
                missing + " ended its transaction");
        // (the count of locks held drops as the participant's ending is taken, a moment before its writes are
        // installed: an abort would leave 100 here for good)
        AtomicOriginatorLostTest.eventually(() -> vars.get(missing).get() == 105L, missing + " committed as its peers"
                + " did (learned from a peer), not the in-doubt window's abort");
        assertEquals(0, servers.get(missing).transactions().activeParticipants());
    }

    @Test
    void theFirstParticipantOnTheTrailLearnsTheCommitFromTheNodeItSentTheChainTo() throws Exception {
        commitMissedBy("a");
    }

    @Test
    void aParticipantInTheMiddleLearnsTheCommitFromAPeer() throws Exception {
        commitMissedBy("b");
    }

    @Test
    void theLastParticipantLearnsTheCommitFromTheHostsBeforeIt() throws Exception {
        commitMissedBy("c");
    }

    @Test
    void withNoDecisionSentEveryParticipantAbortsAfterTheInDoubtWindow() throws Exception {
        cWaits = true;
        Blackout dead = new Blackout();
        RpccClient client = client(dead);
        client.startChain(ChainCall.along(ROUTE, 5L).atomic().timeout(Duration.ofSeconds(60)));
        assertTrue(entered.await(30, TimeUnit.SECONDS));
        AtomicOriginatorLostTest.eventually(() -> servers.values().stream()
                .allMatch(s -> s.transactions().locksHeld() >= 1), "a and b voted; c runs its hop under its lock");
        dead.cut(); // the client goes silent before it decided anything
        client.close();
        release.countDown(); // c's hop ends and votes: nobody hears it
        AtomicOriginatorLostTest.eventually(() -> servers.values().stream()
                .allMatch(s -> s.transactions().locksHeld() == 0), "every participant aborted on its own");
        for (var e : vars.entrySet()) {
            assertEquals(100L, e.getValue().get(), "nothing changed at " + e.getKey());
        }
        servers.values().forEach(s -> assertEquals(0, s.transactions().activeParticipants()));
    }

    @Test
    void aParticipantAskedAboutATransactionItNeverSawAnswersNothing() throws Exception {
        RpccServer b = servers.get("b");
        InetSocketAddress at = new InetSocketAddress(b.address().getHostString(), b.address().getPort());
        try (RawPeer p = new RawPeer("asker", at)) {
            p.handshake();
            ChainSecret secret = ChainSecret.random();
            p.send(RawPeer.bytes(new TxFrames.Query(1, secret, "elsewhere", 1, "asker")));
            assertNull(p.nextFrame(1000), "a peer's query about an unknown transaction is not answered "
                    + "(no presumed abort from a participant)");
            // the same question with b as the originator: b's coordinator presumes abort
            p.send(RawPeer.bytes(new TxFrames.Query(1, secret, "b", 1, "asker")));
            Object answer = p.readFrame();
            TxFrames.Decide d = (TxFrames.Decide) answer;
            assertEquals(false, d.commit());
            assertEquals(false, d.fromPeer());
        }
    }
}
