package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.Refusal;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.testing.RawPeer;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Chains whose hops start sub-chains (nested up to 3 deep, composed or returned, replies through
 * their creators, with or without a reply handler, or straight to the originator), whose hops send
 * partial replies from threads until they are stopped, cancelled at random moments by their
 * originator (by the future, the reply set or a short timeout): a legitimate cancel is never
 * counted as a forged frame at any node, although the frames the sub-chains' hops send their
 * creators keep arriving after the cancel reached the creator. A cancel with a wrong secret still
 * is counted.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SubChainCancelForgeryTest {
    static final int CHAINS = 300;
    static final int SERVERS = 4;
    static final AtomicLong subChains = new AtomicLong();
    static final CountDownLatch holding = new CountDownLatch(1);

    /**
     * Params {@code seed * 4 + depth}: replies from a thread every millisecond until {@code preturn}
     * throws (the chain ended), sleeps a little, and below depth 3 (most of the time) returns a
     * sub-chain at a random server, drawn from the seed; else its params.
     */
    static Object work(Object params) throws InterruptedException {
        long p = (Long) params;
        long seed = p >> 2;
        int depth = (int) (p & 3);
        ChainContext ctx = ChainContext.current();
        Random r = new Random(seed * 31 + depth);
        ctx.startVirtualThread(() -> {
            ChainContext c = ChainContext.current();
            try {
                for (int i = 0; i < 200; i++) {
                    c.preturn(depth + ":" + i + "@" + c.node());
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            } catch (RuntimeException ended) {
                // the chain was cancelled: preturn refuses
            }
        });
        Thread.sleep(r.nextInt(8));
        if (depth < 3 && r.nextInt(5) != 0) {
            subChains.incrementAndGet();
            SubChain sub = SubChain.to("f" + (1 + r.nextInt(SERVERS)), "work").params((seed * 4) + depth + 1)
                    .composition(r.nextBoolean());
            return switch (r.nextInt(4)) {
                case 0 -> sub.repliesToOriginator();
                case 1 -> sub.onReply((reply, hop, host, passOn) -> passOn.accept("via " + ctx.node() + ": " + reply));
                default -> sub; // its replies go through its creator, as they are
            };
        }
        return p;
    }

    @Test
    void legitimateCancelsOfChainsWithSubChainsAreNeverCountedAsForged() throws Exception {
        try (Cluster cluster = new Cluster()) {
            List<RpccServer> servers = new ArrayList<>();
            for (int i = 1; i <= SERVERS; i++) {
                servers.add(cluster.server("f" + i, b -> b.withoutSandbox()
                        .service("work", SubChainCancelForgeryTest::work)
                        .service("hold", p -> {
                            holding.countDown();
                            Thread.sleep(30_000);
                            return p;
                        })));
            }
            RpccClient client = cluster.client();
            long seed = StressDepth.seed(SubChainCancelForgeryTest.class);
            Random random = new Random(seed);
            Map<String, Integer> outcomes = new TreeMap<>();
            List<CompletableFuture<?>> ends = new ArrayList<>();
            for (int i = 0; i < CHAINS; i++) {
                long s = random.nextLong() >>> 8;
                ChainCall call = ChainCall.to("f" + (1 + random.nextInt(SERVERS)), "work").params(s * 4)
                        .timeout(Duration.ofSeconds(5));
                long waitNanos = random.nextInt(30_000_000);
                switch (random.nextInt(3)) {
                    case 0 -> {
                        CompletableFuture<ChainResult> f = client.startChain(call);
                        LockSupport.parkNanos(waitNanos);
                        f.cancel(true);
                        ends.add(f.handle((v, e) -> outcome(outcomes, e)));
                    }
                    case 1 -> {
                        ReplySet<Object> replies = client.startChainWithReplies(call, Object.class);
                        LockSupport.parkNanos(waitNanos);
                        replies.cancel();
                        ends.add(replies.whenDone().thenAccept(set -> outcome(outcomes, set.error())));
                    }
                    default -> {
                        CompletableFuture<ChainResult> f = client.startChain(call.timeout(
                                Duration.ofNanos(2_000_000 + waitNanos)));
                        ends.add(f.handle((v, e) -> outcome(outcomes, e)));
                    }
                }
            }
            CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            // the frames the sub-chains' hops send after the cancel (replies, credit) arrive within a moment
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < until && servers.stream().anyMatch(x -> x.hopsInFlight() > 0)) {
                Thread.sleep(50);
            }
            Thread.sleep(500);
            String context = "seed " + seed + ", outcomes " + outcomes + ", sub-chains " + subChains.get();
            assertTrue(subChains.get() > CHAINS / 2, context);
            assertTrue(outcomes.getOrDefault("cancelled", 0) > CHAINS / 10, context);
            Map<String, Long> forged = new TreeMap<>();
            for (RpccServer server : servers) {
                forged.put(server.name(), server.stats().refused(Refusal.FORGED_FRAME));
            }
            forged.put(client.name(), client.stats().refused(Refusal.FORGED_FRAME));
            assertTrue(forged.values().stream().allMatch(n -> n == 0),
                    () -> "legitimate cancels counted as forged frames: " + forged + " (" + context + ")");
            System.out.println("sub-chain cancels (" + context + "): no forged frame counted");

            // a cancel with a guessed secret still is forged
            RpccServer f1 = servers.getFirst();
            try (RawPeer peer = new RawPeer("mallory", cluster.names.resolve("f1").orElseThrow())) {
                peer.hello("mallory", "127.0.0.1", peer.listener.getLocalPort());
                CompletableFuture<ChainResult> held = client.startChain(ChainCall.to("f1", "hold")
                        .timeout(Duration.ofSeconds(20)));
                assertTrue(holding.await(10, TimeUnit.SECONDS), "the held hop started");
                for (long c = 1; c <= CHAINS + 1; c++) { // the held chain is the client's last
                    peer.send(RawPeer.bytes(new CancelFrame(c, ChainSecret.random(), client.name(),
                            Duration.ofSeconds(5).toNanos())));
                }
                for (int i = 0; i < 200 && f1.stats().refused(Refusal.FORGED_FRAME) == 0; i++) {
                    Thread.sleep(20);
                }
                assertTrue(f1.stats().refused(Refusal.FORGED_FRAME) > 0, "a forged cancel is counted");
                assertTrue(!held.isDone(), "the forged cancel stopped nothing");
                held.cancel(true);
            }
        }
    }

    private static synchronized Object outcome(Map<String, Integer> outcomes, Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        String what = t == null ? "completed"
                : t instanceof CancellationException || t instanceof ChainCancelledException ? "cancelled"
                : t.getClass().getSimpleName();
        outcomes.merge(what, 1, Integer::sum);
        return null;
    }
}
