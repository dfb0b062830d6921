package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Randomized stress of the reply windows: thousands of chains of 1 to 3 hops over 3 servers, each hop
 * replying from 1 to 4 threads with replies of random sizes, read by readers of random speeds through
 * reply sets with small bounds (1 to 8 replies, a few KiB), so that producers keep running out of room,
 * asking and being granted it. For every chain: every reply arrives exactly once, the set never held
 * more than its bounds, no reply arrives after the set ended, and nothing is left waiting.
 */
class ReplyWindowStressTest {
    static final int CHAINS = StressDepth.size("rpcc.stress.windowChains", 2_000, 10_000);
    static final int IN_FLIGHT = 24;
    static final int[] BUFFERS = {1, 2, 3, 8};
    static final long BUFFER_BYTES = 6 * 1024;
    static Cluster cluster;
    static final List<RpccClient> clients = new ArrayList<>();

    /** What hop {@code hop} of chain {@code seed} sends: per thread, the sizes of its replies. */
    static List<int[]> plan(long seed, int hop) {
        Random r = new Random(seed * 31 + hop);
        List<int[]> threads = new ArrayList<>();
        int n = 1 + r.nextInt(4);
        for (int t = 0; t < n; t++) {
            int[] sizes = new int[r.nextInt(12)];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = r.nextInt(4) == 0 ? 1024 + r.nextInt(2048) : 8 + r.nextInt(64);
            }
            threads.add(sizes);
        }
        return threads;
    }

    static List<StaticRoute.Hop> route(long seed) {
        Random r = new Random(seed);
        List<StaticRoute.Hop> hops = new ArrayList<>();
        for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
            hops.add(StaticRoute.hop("s" + (1 + r.nextInt(3)), "send"));
        }
        return hops;
    }

    static Set<String> expected(long seed) {
        Set<String> out = new HashSet<>();
        for (int hop = 1; hop <= route(seed).size(); hop++) {
            List<int[]> threads = plan(seed, hop);
            for (int t = 0; t < threads.size(); t++) {
                for (int i = 0; i < threads.get(t).length; i++) {
                    out.add(hop + ":" + t + ":" + i);
                }
            }
        }
        return out;
    }

    static Object send(Object params) {
        long seed = (Long) params;
        ChainContext ctx = ChainContext.current();
        List<int[]> threads = plan(seed, ctx.hop());
        for (int t = 0; t < threads.size(); t++) {
            int[] sizes = threads.get(t);
            String prefix = ctx.hop() + ":" + t + ":";
            Runnable body = () -> {
                for (int i = 0; i < sizes.length; i++) {
                    byte[] reply = new byte[sizes[i]];
                    byte[] tag = (prefix + i + ";").getBytes();
                    System.arraycopy(tag, 0, reply, 0, Math.min(tag.length, reply.length));
                    ChainContext.current().preturn(reply);
                }
            };
            if (t == 0 && seed % 3 == 0) {
                body.run(); // from the service function itself
            } else {
                ctx.startVirtualThread(body);
            }
        }
        return seed;
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (int i = 1; i <= 3; i++) {
            cluster.server("s" + i, b -> b.replyWriteTimeout(Duration.ofSeconds(60))
                    .service("send", ReplyWindowStressTest::send));
        }
        for (int size : BUFFERS) {
            clients.add(cluster.client(b -> b.replyBufferSize(size).replyBufferBytes(BUFFER_BYTES)));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyReplyOnceNeverOverTheBoundNeverAfterTheEnd() throws Exception {
        Semaphore window = new Semaphore(IN_FLIGHT);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        List<ReplySet<byte[]>> sets = new ArrayList<>();
        long replies = 0;
        for (long seed = 1; seed <= CHAINS; seed++) {
            window.acquire();
            long s = seed;
            Set<String> expected = expected(s);
            replies += expected.size();
            int bound = BUFFERS[(int) (s % BUFFERS.length)];
            RpccClient client = clients.get((int) (s % BUFFERS.length));
            ReplySet<byte[]> set = client.startChainWithReplies(ChainCall.along(StaticRoute.of(route(s)), s)
                    .timeout(Duration.ofSeconds(90)), byte[].class);
            sets.add(set);
            Thread.ofVirtual().start(() -> {
                try {
                    Random speed = new Random(s);
                    int mode = speed.nextInt(3); // 0: as fast as possible, 1: yields, 2: sleeps now and then
                    List<String> got = new ArrayList<>();
                    while (set.hasMore()) {
                        byte[] r = set.next();
                        String tag = new String(r, 0, Math.min(r.length, 16));
                        got.add(tag.substring(0, tag.indexOf(';')));
                        if (mode == 1) {
                            Thread.yield();
                        } else if (mode == 2 && speed.nextInt(4) == 0) {
                            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50 + speed.nextInt(500)));
                        }
                    }
                    if (set.isPartial()) {
                        problems.add("chain " + s + " ended partial: " + set.error());
                    }
                    if (got.size() != new HashSet<>(got).size()) {
                        problems.add("chain " + s + " got a reply twice");
                    }
                    if (!new HashSet<>(got).equals(expected)) {
                        problems.add("chain " + s + " expected " + expected.size() + " replies, got " + got.size());
                    }
                    if (set.maxBuffered() > bound || set.maxBufferedBytes() > BUFFER_BYTES) {
                        problems.add("chain " + s + " buffered " + set.maxBuffered() + " replies, "
                                + set.maxBufferedBytes() + " bytes (bounds " + bound + ", " + BUFFER_BYTES + ")");
                    }
                } catch (RuntimeException e) {
                    problems.add("chain " + s + ": " + e);
                } finally {
                    window.release();
                }
            });
        }
        assertTrue(window.tryAcquire(IN_FLIGHT, 5, TimeUnit.MINUTES), "every chain ended");
        assertEquals(List.of(), List.copyOf(problems).subList(0, Math.min(20, problems.size())));
        int afterEnd = 0;
        for (ReplySet<byte[]> set : sets) {
            afterEnd += set.arrivedAfterEnd();
        }
        assertEquals(0, afterEnd, "replies that arrived after their set ended");
        for (RpccClient c : clients) {
            assertEquals(0, c.chainsInFlight());
            assertEquals(0, c.lateFrames(), "frames for chains that had already finished");
        }
        System.out.printf("%d chains, %d replies through windows of 1 to 8 replies and %d bytes: each delivered "
                + "once, none over the bound, none after the end%n", CHAINS, replies, BUFFER_BYTES);
    }
}
