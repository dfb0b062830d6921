package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.internal.wire.WireFormat;
import io.rpcc.core.testing.RawPeer;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What the tests of hostile stream senders share: a streaming function that counts what it reads
 * and records the outcome under its params, and raw-socket helpers to announce streams, send their
 * data and wait for the node's answer frames.
 */
final class HostileStreams {
    static final int KIB = 1024;

    /** What each stream's function read: its byte count, or the exception its read threw; by params. */
    private final Map<String, BlockingQueue<Object>> outcomes = new ConcurrentHashMap<>();

    /** Counts the bytes of {@code in}, and records the count (or the read's failure) under {@code p}. */
    Object count(Object p, InputStream in) {
        long n = 0;
        byte[] buf = new byte[4096];
        try {
            for (int r; (r = in.read(buf)) >= 0; ) {
                n += r;
            }
            outcome(p).add(n);
        } catch (IOException e) {
            outcome(p).add(e);
        }
        return n;
    }

    /** The outcomes recorded under {@code key} so far. */
    BlockingQueue<Object> outcome(Object key) {
        return outcomes.computeIfAbsent(String.valueOf(key), k -> new LinkedBlockingQueue<>());
    }

    /** The next outcome under {@code key}, within 20 s. */
    Object awaitOutcome(String key) throws InterruptedException {
        Object o = outcome(key).poll(20, TimeUnit.SECONDS);
        assertNotNull(o, "the function reading stream '" + key + "' did not end");
        return o;
    }

    /** {@code r} announcing stream {@code stream}, as bytes to send. */
    static byte[] streamRequest(ChainRequest r, long stream) {
        return RawPeer.bytes(r.withStream(new WireFormat.AnnouncedStream(stream)));
    }

    /** {@code bytes} of data on {@code stream}, in 64 KiB frames. */
    static byte[][] data(long stream, int bytes) {
        List<byte[]> frames = new ArrayList<>();
        for (int sent = 0; sent < bytes; sent += 64 * KIB) {
            frames.add(RawPeer.bytes(new StreamFrames.Data(stream, new byte[Math.min(64 * KIB, bytes - sent)])));
        }
        return frames.toArray(byte[][]::new);
    }

    /** The next frame of type {@code type} the node sends on {@code peer}'s connection, within 10 s. */
    static <T> T awaitFrame(RawPeer peer, Class<T> type) throws IOException {
        peer.socket.setSoTimeout(10_000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<Object> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            try {
                Object f = peer.readFrame();
                if (type.isInstance(f)) {
                    return type.cast(f);
                }
                seen.add(f);
            } catch (SocketTimeoutException e) {
                break;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " from the node; it sent " + seen);
    }

    /** Waits up to 10 s for {@code condition}, then asserts it. */
    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(condition.getAsBoolean(), what);
    }
}
