package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainStreamException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StreamedResult;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Data streams of hops ({@code ChainCall.stream}, {@code StreamingServiceFunction},
 * {@code StreamedResult}) between real nodes: the function starts before its data has arrived, the
 * bytes come through whole and in order, client to hop and hop to hop, and a stream that ends early
 * reaches the function as a typed {@link ChainStreamException}.
 */
class HopStreamTest {
    static Cluster cluster;
    static RpccServer s1;
    static RpccServer s2;
    static RpccClient client;
    static final CountDownLatch started = new CountDownLatch(1);
    static final AtomicReference<Throwable> readFailure = new AtomicReference<>();
    static volatile CountDownLatch failed = new CountDownLatch(1);
    static final CountDownLatch endlessClosed = new CountDownLatch(1);

    static final ChainingFunctionSource TO_S2 = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ToS2 implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("s2", state.get("next", String.class), result);
                }
            }
            """);

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b
                .streamWindowBytes(1 << 20) // 16 streams' windows at once fit in what one address may hold
                .streamingService("digest", (p, in) -> hex(digest(in)))
                .streamingService("startsFirst", (p, in) -> {
                    started.countDown(); // the client sends the rest of its data only after this
                    return hex(digest(in));
                })
                .streamingService("readAll", (p, in) -> {
                    try {
                        return hex(digest(in));
                    } catch (IOException e) {
                        readFailure.set(e);
                        failed.countDown();
                        throw e;
                    }
                })
                .streamingService("relay", (p, in) -> StreamedResult.of(p, in)) // passes its stream on as it reads
                .service("produce", p -> StreamedResult.of((Integer) p, new Generated((Integer) p, 7)))
                .service("produceAndEnd", p -> StreamedResult.of(1, new Generated(10, 7)))
                .service("produceEndless", p -> StreamedResult.of(p, new Generated(Long.MAX_VALUE, 3) {
                    @Override
                    public void close() {
                        endlessClosed.countDown();
                    }
                })));
        s2 = cluster.server("s2", b -> b
                .streamingService("digest", (p, in) -> p + ":" + hex(digest(in)))
                .streamingService("firstByte", (p, in) -> in.read()));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void clientStreamsToAHopWholeAndInOrder() throws Exception {
        byte[] data = new byte[5 << 20];
        new Random(3).nextBytes(data);
        ChainResult r = client.runChain(ChainCall.to("s1", "digest").stream(new java.io.ByteArrayInputStream(data)));
        assertEquals(hex(MessageDigest.getInstance("SHA-256").digest(data)), r.value());
    }

    @Test
    void manyStreamsAtOnceShareAConnection() throws Exception {
        java.util.List<CompletableFuture<ChainResult>> all = new java.util.ArrayList<>();
        for (int i = 0; i < 16; i++) { // started from several threads: their REQUESTs leave in any order
            int seed = i;
            all.add(CompletableFuture.supplyAsync(() -> client.startChain(ChainCall.to("s1", "digest")
                    .stream(new Generated(1 << 20, 100 + seed)))).thenCompose(f -> f));
        }
        for (int i = 0; i < all.size(); i++) {
            assertEquals(hex(digest(new Generated(1 << 20, 100 + i))), all.get(i).get(60, TimeUnit.SECONDS).value());
        }
    }

    @Test
    void aStreamingFunctionWithoutAStreamReadsAnEmptyOne() throws Exception {
        ChainResult r = client.runChain(ChainCall.to("s1", "digest"));
        assertEquals(hex(MessageDigest.getInstance("SHA-256").digest(new byte[0])), r.value());
    }

    @Test
    void theFunctionStartsBeforeItsDataHasArrived() throws Exception {
        // the source holds back all but its first 1000 bytes until the function has started: the
        // chain could not end if the function waited for the whole stream
        Generated rest = new Generated(3 << 20, 5);
        InputStream gated = new InputStream() {
            long at;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (at >= 1000) {
                    try {
                        if (!started.await(20, TimeUnit.SECONDS)) {
                            throw new IOException("the service function did not start before its data had arrived");
                        }
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                }
                int n = rest.read(b, off, at < 1000 ? (int) Math.min(len, 1000 - at) : len);
                if (n > 0) {
                    at += n;
                }
                return n;
            }
        };
        ChainResult r = client.runChain(ChainCall.to("s1", "startsFirst").stream(gated).timeout(Duration.ofSeconds(30)));
        assertEquals(hex(digest(new Generated(3 << 20, 5))), r.value());
    }

    @Test
    void aHopStreamsItsResultOnToTheNextHop() throws Exception {
        int size = 6 << 20;
        ChainResult r = client.runChain(ChainCall.to("s1", "produce").params(size).chainingFunction(TO_S2)
                .state(ChainState.of("next", "digest")));
        assertEquals(size + ":" + hex(digest(new Generated(size, 7))), r.value());
        assertEquals(java.util.List.of("s1", "s2"), r.path());
    }

    @Test
    void aHopPassesTheStreamItReadsOnToTheNextHopWhileItArrives() throws Exception {
        int size = 5 << 20;
        ChainResult r = client.runChain(ChainCall.to("s1", "relay").params("relayed").stream(new Generated(size, 9))
                .chainingFunction(TO_S2).state(ChainState.of("next", "digest")));
        assertEquals("relayed:" + hex(digest(new Generated(size, 9))), r.value());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s1.streamStats().bufferedBytes() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, s1.streamStats().bufferedBytes(), "the relay holds nothing once the stream is through");
    }

    @Test
    void aNextHopThatStopsReadingStopsTheHopThatStreamsToIt() throws Exception {
        // an endless stream: the next hop reads one byte and returns; its node tells the sender to stop
        ChainResult r = client.runChain(ChainCall.to("s1", "produceEndless").params("x").chainingFunction(TO_S2)
                .state(ChainState.of("next", "firstByte")));
        assertTrue((Integer) r.value() >= 0);
        assertTrue(endlessClosed.await(20, TimeUnit.SECONDS), "the sending hop closed its source");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s2.streamStats().bufferedBytes() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, s2.streamStats().bufferedBytes());
    }

    @Test
    void aStreamedResultThatEndsTheChainFailsTheHop() {
        CompletionException e = assertThrows(CompletionException.class,
                () -> client.startChain(ChainCall.to("s1", "produceAndEnd")).join());
        ServiceFunctionException f = assertInstanceOf(ServiceFunctionException.class, e.getCause());
        assertTrue(f.getMessage().contains("only a next hop takes a data stream"), f.getMessage());
    }

    @Test
    void aSourceThatFailsEndsTheFunctionsStreamWithATypedError() throws Exception {
        failed = new CountDownLatch(1);
        InputStream broken = new InputStream() {
            int left = 300_000;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left <= 0) {
                    throw new IOException("disk on fire");
                }
                int n = Math.min(len, left);
                left -= n;
                return n;
            }
        };
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.to("s1", "readAll").stream(broken));
        assertTrue(failed.await(20, TimeUnit.SECONDS));
        ChainStreamException e = assertInstanceOf(ChainStreamException.class, readFailure.get());
        assertEquals(ChainStreamException.Reason.SENDER_ABORTED, e.reason());
        assertTrue(e.getMessage().contains("disk on fire"), e.getMessage());
        assertThrows(CompletionException.class, f::join);
    }

    @Test
    void aCancelledChainEndsItsStreamAtTheHop() throws Exception {
        failed = new CountDownLatch(1);
        InputStream endless = new Generated(Long.MAX_VALUE, 1) {
            @Override
            public int read(byte[] b, int off, int len) {
                try {
                    Thread.sleep(5); // a slow source: the chain is cancelled while it flows
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.read(b, off, Math.min(len, 4096));
            }
        };
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.to("s1", "readAll").stream(endless));
        Thread.sleep(300);
        f.cancel(true);
        assertTrue(failed.await(20, TimeUnit.SECONDS));
        // the cancel interrupts the hop's thread, or the stream's abort gets there first
        Throwable e = readFailure.get();
        assertTrue(e instanceof java.io.InterruptedIOException || e instanceof ChainStreamException c
                && c.reason() == ChainStreamException.Reason.SENDER_ABORTED, String.valueOf(e));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s1.streamStats().bufferedBytes() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, s1.streamStats().bufferedBytes(), "what the stream left at the hop is dropped");
    }

    static byte[] digest(InputStream in) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0; ) {
                md.update(buf, 0, n);
            }
            return md.digest();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }

    /** {@code size} pseudo-random bytes from {@code seed}, made as they are read (never held). */
    static class Generated extends InputStream {
        private final long size;
        private long at;
        private long x;

        Generated(long size, long seed) {
            this.size = size;
            this.x = seed * 0x9E3779B97F4A7C15L + 1;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (at >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - at);
            for (int i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                b[off + i] = (byte) x;
            }
            at += n;
            return n;
        }
    }
}
