package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Refusal;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.testing.RawPeer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hostile peer fills the tables a server keeps for the chains passing through it (trails for
 * cancels, the outcome cache, the compile queue) as hard as it can; another peer's chains still work
 * during and after the flood, and the attacker is refused or counted. The attacker connects from
 * another loopback address (127.0.0.2) in plaintext, or under mutual TLS with a certificate of its
 * own: both make it another peer ({@code NodeTransport.peerOf}).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PeerBoundsTest {
    /** ChainTrails.MAX_UNKNOWN_CANCELS_PER_PEER: cancels of chains never seen kept for one peer. */
    static final int UNKNOWN_CANCELS_PER_PEER = 1024;
    static final InetAddress ATTACKER;
    static final InetAddress VICTIM;

    static {
        try {
            ATTACKER = InetAddress.getByName("127.0.0.2");
            VICTIM = InetAddress.getByName("127.0.0.3");
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static void eventually(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(20);
        }
    }

    static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * Cancels for chains that never passed through {@code a}, with made-up ids, origins and secrets,
     * sent as fast as a raw socket can while a real chain runs through {@code a} to {@code b}: past
     * its share of remembered marks ({@link #UNKNOWN_CANCELS_PER_PEER}) each one is held against the
     * flooder's connection ({@link Refusal#FORGED_FRAME}), which is cut off
     * ({@link Refusal#TOO_MANY_BAD_FRAMES}); a new connection from the same address is cut off
     * sooner, its share being full already. The real chain's trail at {@code a} survives all of it,
     * and the client's cancel still reaches and stops its hop at {@code b}.
     */
    @Test
    void aFloodOfCancelsForMadeUpChainsIsCutOffAndDoesNotEvictARealChainsTrail() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        try (Cluster cluster = new Cluster()) {
            RpccServer a = cluster.server("a", b -> b.service("pass", p -> p));
            cluster.server("b", b -> b.service("hold", p -> {
                entered.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
                return p;
            }));
            RpccClient client = cluster.client();
            CompletableFuture<ChainResult> chain = client.startChain(ChainCall.along(StaticRoute.of(
                    StaticRoute.hop("a", "pass"), StaticRoute.hop("b", "hold")), "x").timeout(Duration.ofSeconds(60)));
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the chain reached b");

            int allowance = NodeBuilder.DEFAULT_MAX_BAD_FRAMES_PER_CONNECTION;
            Random random = new Random(26);
            // the first connection: its share of marks, then its allowance of refused cancels
            floodCancelsUntilCutOff(a, random, 70_000);
            eventually(() -> a.stats().refused(Refusal.TOO_MANY_BAD_FRAMES) >= 1,
                    () -> "the flooder was cut off: " + a.stats());
            assertTrue(a.stats().refused(Refusal.FORGED_FRAME) >= allowance,
                    "the cancels over its share were counted: " + a.stats());
            assertTrue(a.forgottenCancels() >= allowance, "over its share, its oldest marks went: " + a.forgottenCancels());

            // again from the same address: the share is the peer's, not the connection's
            long forgedBefore = a.stats().refused(Refusal.FORGED_FRAME);
            floodCancelsUntilCutOff(a, random, 70_000);
            eventually(() -> a.stats().refused(Refusal.TOO_MANY_BAD_FRAMES) >= 2,
                    () -> "the flooder's second connection was cut off: " + a.stats());
            assertTrue(a.stats().refused(Refusal.FORGED_FRAME) >= forgedBefore + allowance, a.stats().toString());

            assertTrue(a.trackedChains() <= 1 + UNKNOWN_CANCELS_PER_PEER,
                    "a holds the real trail and at most the attacker's share of marks: " + a.trackedChains());
            assertEquals(0, a.forgottenTrails(), "no trail was forgotten for the flood");

            assertTrue(chain.cancel(true));
            assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the client's cancel reached the hop at b through a");
        }
    }

    /**
     * Sends made-up cancels to {@code node} from {@link #ATTACKER} on a new connection, in batches, until
     * the node closes it (a write fails, or it is seen closed) or {@code most} are sent; returns how many
     * were written before that.
     */
    private static int floodCancelsUntilCutOff(RpccServer node, Random random, int most) throws Exception {
        int sent = 0;
        try (RawPeer mallory = new RawPeer("mallory", node.address(), ATTACKER)) {
            mallory.hello();
            try {
                while (sent < most) {
                    ByteArrayOutputStream batch = new ByteArrayOutputStream();
                    for (int i = 0; i < 500; i++) {
                        batch.writeBytes(RawPeer.bytes(new CancelFrame(random.nextLong(), ChainSecret.random(),
                                "origin-" + random.nextInt(1000), TimeUnit.MINUTES.toNanos(10))));
                    }
                    mallory.send(batch.toByteArray());
                    sent += 500;
                }
            } catch (IOException closedByTheNode) {
                return sent;
            }
            assertTrue(mallory.closedWithin(20_000), "the node closed the flooder's connection after " + sent + " cancels");
        }
        return sent;
    }

    /**
     * A peer that sends 1,000 cheap new hops to a server whose outcome cache holds 200 outcomes: a
     * chain another peer sent before is still replayed when it is sent again (a retry), and its side
     * effect does not run twice. The attacker's own outcomes are evicted (counted).
     */
    @Test
    void anotherPeersFloodOfCheapHopsDoesNotEvictAnOutcomeSoARetryDoesNotRepeatItsSideEffect() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        try (Cluster cluster = new Cluster()) {
            RpccServer s = cluster.server("s", b -> b
                    .service("charge", p -> "charged " + p + " #" + charges.incrementAndGet())
                    .service("cheap", p -> p)
                    .outcomeCache(200, 16L << 20, Duration.ofMinutes(1)));
            try (RawPeer victim = new RawPeer("victim", s.address(), VICTIM);
                 RawPeer mallory = new RawPeer("mallory", s.address(), ATTACKER)) {
                victim.handshake();
                ChainRequest first = victim.request(1, "charge", "order-1");
                victim.send(RawPeer.bytes(first));
                assertEquals("charged order-1 #1", assertInstanceOf(ChainResultFrame.class, victim.readBackFrame()).value());
                eventually(() -> s.stats().outcomeCacheEntries() == 1, () -> "the outcome is kept: " + s.stats());

                mallory.handshake();
                int flood = 1_000;
                ByteArrayOutputStream batch = new ByteArrayOutputStream();
                for (int i = 0; i < flood; i++) {
                    batch.writeBytes(RawPeer.bytes(mallory.request(1_000 + i, "cheap", i)));
                }
                mallory.send(batch.toByteArray());
                mallory.drainBackChannel();
                eventually(() -> s.stats().outcomeCacheMisses() >= flood + 1 && s.stats().outcomeCacheEvictions()
                        >= flood - 200, () -> "the flood ran and was evicted: " + s.stats());

                ChainRequest again = new ChainRequest(first.header().withAttempt(2), "order-1", ChainState.empty(), null);
                victim.send(RawPeer.bytes(again));
                assertEquals("charged order-1 #1", assertInstanceOf(ChainResultFrame.class, victim.readBackFrame()).value(),
                        "the retry replays the first run's outcome");
            }
            assertEquals(1, charges.get(), "the side effect ran once");
            assertTrue(s.stats().outcomeCacheHits() >= 1, s.stats().toString());
            assertTrue(s.stats().outcomeCacheEntries() <= 101, "the attacker held at most its share: " + s.stats());
        }
    }

    static ChainingFunctionSource fresh(String who, int i) {
        return ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class F%s%d implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end("%s-%d:" + result);
                    }
                }
                """.formatted(who, i, who, i));
    }

    /**
     * Under mutual TLS, a client floods a server with chains carrying new functions, 40 at a time,
     * over the server's compile queue of 4; meanwhile another client's 6 new functions all compile
     * and run. The attacker is refused with the typed, retryable compile error (counted).
     */
    @Test
    void onePeersCompileFloodLeavesOtherPeersTheirShareOfTheCompileQueue() throws Exception {
        try (Cluster cluster = new Cluster(Cluster.Security.MUTUAL_TLS)) {
            RpccServer guard = cluster.server("guard", b -> b.service("echo", p -> p).maxQueuedCompiles(4));
            RpccClient mallory = cluster.client(b -> b.timeout(Duration.ofSeconds(60)));
            RpccClient alice = cluster.client(b -> b.timeout(Duration.ofSeconds(60)));
            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger next = new AtomicInteger();
            List<CompletableFuture<?>> flood = new ArrayList<>();
            ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
            for (int t = 0; t < 40; t++) {
                flood.add(CompletableFuture.runAsync(() -> {
                    while (flooding.get()) {
                        try {
                            mallory.runChain(ChainCall.to("guard", "echo").params("m")
                                    .chainingFunction(fresh("M", next.incrementAndGet())));
                        } catch (RuntimeException e) {
                            if (unwrap(e) instanceof ChainingFunctionCompileException ce && ce.isRetryable() && "guard".equals(ce.host())) {
                                refused.incrementAndGet();
                            }
                        }
                    }
                }, pool));
            }
            try {
                eventually(() -> refused.get() > 0, () -> "the flood fills the attacker's share");
                for (int i = 0; i < 6; i++) {
                    assertEquals("A-" + i + ":a" + i, alice.runChain(ChainCall.to("guard", "echo").params("a" + i)
                            .chainingFunction(fresh("A", i))).value(), "alice's new function " + i + " compiled and ran");
                }
            } finally {
                flooding.set(false);
                CompletableFuture.allOf(flood.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                pool.close();
            }
            assertTrue(guard.stats().refused(Refusal.COMPILE_QUEUE_FULL) >= refused.get(), guard.stats().toString());
        }
    }
}
