package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flow control per chain: a reply set that is not read holds back only its own producers, never the
 * connections it shares with other chains; and its buffer bound is exact, in replies and in bytes,
 * with several producers on several nodes.
 */
class ReplyWindowTest {
    static final int BUFFER = 16;
    static final long BUFFER_BYTES = 256 * 1024;
    static Cluster cluster;
    static RpccClient client;

    /** Params [n, size, threads]: {@code threads} tasks each reply {@code n} byte arrays of {@code size} bytes. */
    static Object spray(Object params) {
        int[] p = (int[]) params;
        ChainContext ctx = ChainContext.current();
        for (int t = 0; t < p[2]; t++) {
            int task = t;
            ctx.startVirtualThread(() -> {
                for (int i = 0; i < p[0]; i++) {
                    byte[] reply = new byte[p[1]];
                    String tag = ctx.hop() + ":" + task + ":" + i;
                    byte[] id = tag.getBytes();
                    System.arraycopy(id, 0, reply, 0, Math.min(id.length, reply.length));
                    ChainContext.current().preturn(reply);
                }
            });
        }
        return params;
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String s : List.of("p1", "p2", "p3")) {
            cluster.server(s, b -> b.replyWriteTimeout(Duration.ofSeconds(60))
                    .service("spray", ReplyWindowTest::spray)
                    .service("echo", x -> x));
        }
        client = cluster.client(b -> b.replyBufferSize(BUFFER).replyBufferBytes(BUFFER_BYTES));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    /**
     * With 32-byte replies the unread set fills up to its count bound, with 64 KiB replies to its
     * byte bound; either way the 1,000 plain calls on the same connections do not wait for it.
     */
    @ParameterizedTest(name = "{0}-byte replies")
    @ValueSource(ints = {32, 64 * 1024})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anUnreadReplySetDoesNotHoldUpOtherChainsBetweenTheSameNodes(int size) throws Exception {
        ReplySet<byte[]> stalled = client.startChainWithReplies(ChainCall.to("p1", "spray")
                .params(new int[] {100_000, size, 1}).timeout(Duration.ofSeconds(60)), byte[].class);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!full(stalled, size) && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertTrue(full(stalled, size), "the unread set filled up to one of its bounds: " + stalled.received()
                + " replies, " + stalled.maxBufferedBytes() + " bytes");
        int held = stalled.received();
        long start = System.nanoTime();
        List<CompletableFuture<ChainResult>> calls = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            calls.add(client.call("p1", "echo", i));
        }
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, calls.get(i).get(30, TimeUnit.SECONDS).value());
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs < 30_000, "1,000 plain calls completed well before the unread set's 60 s timeout");
        assertFalse(stalled.isDone(), "the unread chain is still waiting for its reader");
        assertEquals(held, stalled.received(), "no reply arrived beyond the bound while the set was unread");
        assertTrue(stalled.maxBuffered() <= BUFFER, "max buffered " + stalled.maxBuffered());
        assertTrue(stalled.maxBufferedBytes() <= BUFFER_BYTES, "max buffered bytes " + stalled.maxBufferedBytes());
        if (size == 32) {
            assertEquals(BUFFER, stalled.maxBuffered());
        }
        // now read a little: the producer goes on from where it waited
        for (int i = 0; i < 3 * BUFFER; i++) {
            assertEquals(size, stalled.next().length);
        }
        assertTrue(stalled.maxBuffered() <= BUFFER);
        assertTrue(stalled.maxBufferedBytes() <= BUFFER_BYTES);
        stalled.cancel();
    }

    /** Whether {@code set} holds as many replies of {@code size} bytes as its bounds allow. */
    private static boolean full(ReplySet<byte[]> set, int size) {
        return set.received() >= BUFFER || set.maxBufferedBytes() > BUFFER_BYTES - size - 64;
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theBoundIsExactForSmallReplies() throws Exception {
        readSlowlyAndCheck(32, 200);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theBoundIsExactForLargeReplies() throws Exception {
        readSlowlyAndCheck(64 * 1024, 12);
    }

    /** Three hops on three nodes, four threads each, all replying at once to a reader that is slow. */
    private static void readSlowlyAndCheck(int size, int perThread) throws Exception {
        int[] params = {perThread, size, 4};
        ReplySet<byte[]> replies = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("p1", "spray"), StaticRoute.hop("p2", "spray"), StaticRoute.hop("p3", "spray")),
                params).timeout(Duration.ofSeconds(90)), byte[].class);
        Set<String> seen = new HashSet<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!replies.isDone() && replies.received() < BUFFER && replies.maxBufferedBytes() <= BUFFER_BYTES - size - 64
                && System.nanoTime() < until) {
            Thread.sleep(5); // read nothing at first: the producers fill the window
        }
        int read = 0;
        while (replies.hasMore()) {
            byte[] r = replies.next();
            assertEquals(size, r.length);
            String tag = new String(r, 0, Math.min(r.length, 16)).trim().replace("\0", "");
            assertTrue(seen.add(tag), "reply " + tag + " delivered twice");
            if (read++ % 3 == 0) {
                Thread.sleep(1);
            }
        }
        assertFalse(replies.isPartial(), () -> "ended with " + replies.error());
        assertEquals(3 * 4 * perThread, read);
        assertTrue(replies.maxBuffered() <= BUFFER, "max buffered " + replies.maxBuffered());
        assertTrue(replies.maxBufferedBytes() <= BUFFER_BYTES, "max buffered bytes " + replies.maxBufferedBytes());
        assertTrue(replies.maxBuffered() == BUFFER || replies.maxBufferedBytes() > BUFFER_BYTES - size - 64,
                "the window filled up to one of its bounds");
        assertEquals(0, replies.arrivedAfterEnd());
        System.out.printf("%d-byte replies: at most %d replies, %d bytes buffered (bounds %d, %d)%n", size,
                replies.maxBuffered(), replies.maxBufferedBytes(), BUFFER, BUFFER_BYTES);
    }
}
