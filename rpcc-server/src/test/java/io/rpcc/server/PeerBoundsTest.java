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
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.testing.RawPeer;
import java.io.ByteArrayOutputStream;
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
     * 70,000 cancels for chains that never passed through {@code a}, with made-up ids, origins and
     * secrets, sent while a real chain runs through {@code a} to {@code b}: its trail at {@code a}
     * survives, and the client's cancel still reaches and stops its hop at {@code b}.
     */
    @Test
    void aFloodOfCancelsForMadeUpChainsDoesNotEvictARealChainsTrail() throws Exception {
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

            int flood = 70_000;
            try (RawPeer mallory = new RawPeer("mallory", a.address(), ATTACKER)) {
                mallory.hello();
                Random random = new Random(26);
                for (int sent = 0; sent < flood; ) {
                    ByteArrayOutputStream batch = new ByteArrayOutputStream();
                    for (int i = 0; i < 5_000; i++, sent++) {
                        batch.writeBytes(RawPeer.bytes(new CancelFrame(random.nextLong(), ChainSecret.random(),
                                "origin-" + random.nextInt(1000), TimeUnit.MINUTES.toNanos(10))));
                    }
                    mallory.send(batch.toByteArray());
                }
                long expected = flood - UNKNOWN_CANCELS_PER_PEER;
                eventually(() -> a.forgottenCancels() >= expected, () -> "the flood was read: " + a.forgottenCancels()
                        + " cancels of made-up chains forgotten");
            }
            assertTrue(a.trackedChains() <= 1 + UNKNOWN_CANCELS_PER_PEER,
                    "a holds the real trail and at most the attacker's share of marks: " + a.trackedChains());
            assertEquals(0, a.forgottenTrails(), "no trail was forgotten for the flood");

            assertTrue(chain.cancel(true));
            assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the client's cancel reached the hop at b through a");
        }
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
