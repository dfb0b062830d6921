package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.client.Heartbeats;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.client.ChainCall;
import io.rpcc.core.ChainContext;
import io.rpcc.core.Refusal;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Reproducers of what the graceful idle close (GOAWAY) and the resend of unsent frames do not cover
 * yet. Each prints what it saw; the assertions state the behaviour wanted. Both are disabled: they
 * fail today (their reasons say how), and fail the same way, or worse, without the GOAWAY.
 */
class IdleCloseGapsTest {
    private static final Duration IDLE = Duration.ofMillis(60);
    private Cluster cluster;
    private final AtomicInteger runs = new AtomicInteger();

    @BeforeEach
    void start() {
        cluster = new Cluster();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    /**
     * A request carrying a data stream, written on a pooled connection at the moment the server lets
     * it go as idle: the resend leaves it out, so it still fails (or runs with a cut stream).
     */
    @Test
    @Disabled("4 and 7 of 300 calls still failed in two runs (15 before the resend of an unsent stream request, all "
            + "of them refused requests), each with ChainStreamException: the connection that brought the stream closed "
            + "before its end; cause not found yet")
    void streamRequestsRacingTheServersIdleClose() throws Exception {
        cluster.server("idler", b -> b.idleTimeout(IDLE).streamingService("len", (p, in) -> {
            runs.incrementAndGet();
            return in.readAllBytes().length;
        }));
        int rounds = Integer.getInteger("rpcc.idleGaps.rounds", 300);
        List<RpccClient> clients = List.of(cluster.client(), cluster.client(), cluster.client());
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (RpccClient c : clients) {
            threads.add(Thread.ofPlatform().start(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int round = 0; round < rounds / 3; round++) {
                    try {
                        Object got = c.runChain(ChainCall.to("idler", "len")
                                .stream(new ByteArrayInputStream(new byte[1000]))).value();
                        if (!Integer.valueOf(1000).equals(got)) {
                            failures.add("round " + round + ": got " + got);
                        }
                    } catch (RuntimeException e) {
                        failures.add("round " + round + ": " + e);
                    }
                    done.incrementAndGet();
                    LockSupport.parkNanos(IDLE.toNanos() - 8_000_000L + random.nextLong(16_000_000L));
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("REVIEW stream race: " + done.get() + " calls, " + failures.size() + " failed, hops run "
                + runs.get() + "; first failures: " + failures.stream().limit(3).toList());
        assertEquals(List.of(), failures.stream().limit(5).toList(), failures.size() + " of " + done.get() + " failed");
    }

    /**
     * A hop sends a partial reply, then works quietly for longer than the client's idle timeout (its
     * heartbeats further apart than that), then ends: the client lets the reply connection go in
     * between. Does the chain end with its result?
     */
    @Test
    @Disabled("a hop's replies stay pinned to their first connection: moving them to another when the originator "
            + "lets it go is not clearly safe (the credit on the new connection could overtake a reply still unread "
            + "on the old one, and the originator drops a reply that arrives after the credit)")
    void aHopThatPausesBetweenRepliesLongerThanTheClientsIdleTimeoutStillEnds() throws Exception {
        cluster.server("pauser", b -> b.service("work", p -> {
            ChainContext.current().preturn(1);
            Thread.sleep(700);
            ChainContext.current().preturn(2);
            return "done";
        }));
        RpccClient c = cluster.client(b -> b.idleTimeout(Duration.ofMillis(150))
                .heartbeats(Heartbeats.every(Duration.ofSeconds(5), Duration.ofSeconds(15))).timeout(Duration.ofSeconds(12)));
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < 3; i++) {
            ReplySet<Integer> replies = c.startChainWithReplies(ChainCall.to("pauser", "work").params(i), Integer.class);
            List<Integer> got = new ArrayList<>();
            long start = System.nanoTime();
            try {
                while (replies.hasMore()) {
                    got.add(replies.next());
                }
                Object v = replies.result().get(15, TimeUnit.SECONDS).value();
                if (!"done".equals(v) || !got.equals(List.of(1, 2)) || replies.isPartial()) {
                    failures.add("call " + i + ": " + v + " " + got + " partial " + replies.isPartial() + " " + replies.error());
                }
            } catch (Exception e) {
                failures.add("call " + i + " (" + got + ", after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                        + " ms): " + e);
            }
        }
        System.out.println("REVIEW pause-between-replies: " + failures);
        assertEquals(List.of(), List.copyOf(failures));
    }

    /** Keeps the javac happy about unused imports across variants of this scratch file. */
    @SuppressWarnings("unused")
    private static final Class<?>[] USED = {InputStream.class, Refusal.class};
}
