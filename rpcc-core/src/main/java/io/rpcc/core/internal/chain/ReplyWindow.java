package io.rpcc.core.internal.chain;

import io.rpcc.core.internal.wire.ReplyStream;
import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The originator's side of reply flow control for one reader of partial replies (a reply set): a
 * buffer bound in replies and bytes, and the room granted to each <em>reply stream</em> (the replies
 * of one hop at one node, from one connection) of the chains that feed it. A stream sends only within the room it was
 * granted, and the window never grants more than the bound minus what is buffered and what other
 * streams still hold, so the buffer can never hold more than the bound; a full buffer holds back
 * only the streams that feed it, never a connection.
 *
 * <p>A stream that lacks room gives back what it has left and says how large the reply is that it
 * waits to send ({@link #update}); the window grants it as soon as there is room for that reply, but
 * waits for a quarter of the buffer to be free if the reader will free that much (so that a slow reader
 * does not cost two frames per reply). A stream's first grant is small (8 replies, 64 KiB) and each
 * next one at most twice the last, up to half the bound: a stream that sends few replies holds little
 * room that others might need, and a fast one soon gets large grants. Streams give back what they
 * have left when they end. All methods may be called from any thread;
 * grants are sent after the window's lock is released.
 */
@EngineSpi
public final class ReplyWindow {
    private static final Logger log = LoggerFactory.getLogger(ReplyWindow.class);

    /** Sends a grant to a stream's node. */
    @FunctionalInterface
    public interface Granter {
        /** Lets the stream send {@code replies} more replies of at most {@code bytes} more bytes. */
        void grant(int replies, long bytes);
    }

    /**
     * A reply stream: the replies of one hop at one host, from one sender (the connection they come
     * on: the host itself, or a creator passing on its sub-chain's replies, which may pass on those of
     * a hop and host that another branch's hop of the same number there sends straight).
     */
    private record StreamKey(long chainId, ReplyStream stream, @Nullable Object sender) {
    }

    /** A stream's first grant: at most this many replies and bytes (a grant doubles from one to the next). */
    private static final long FIRST_GRANT_REPLIES = 8;
    private static final long FIRST_GRANT_BYTES = 64 * 1024;

    /** What a stream holds (granted and not yet arrived nor given back), what it waits for, its last grant. */
    private static final class Stream {
        long replies;
        long bytes;
        long wantBytes; // 0: not waiting
        Granter granter;
        long lastGrantReplies;
        long lastGrantBytes;
    }

    private final long maxReplies;
    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    private final Map<StreamKey, Stream> streams = new HashMap<>();
    private @Nullable LinkedHashSet<StreamKey> waiting; // made when a stream first waits
    private long bufferedReplies;
    private long bufferedBytes;
    private long heldReplies;
    private long heldBytes;
    private boolean overdrawn;

    /** A window that buffers at most {@code maxReplies} replies and {@code maxBytes} bytes. */
    public ReplyWindow(long maxReplies, long maxBytes) {
        if (maxReplies < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("a reply window needs room for at least one reply and one byte, got "
                    + maxReplies + " replies and " + maxBytes + " bytes");
        }
        this.maxReplies = maxReplies;
        this.maxBytes = maxBytes;
    }

    /** A window without bound, for replies that are collected rather than read. */
    public static ReplyWindow unbounded() {
        return new ReplyWindow(Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * Stream {@code stream} of chain {@code chainId}, from {@code sender} (the connection), gave back
     * {@code replies} and {@code bytes} of its room and, if {@code wantBytes > 0}, waits for room for a
     * reply of that size; grants go through {@code granter}.
     */
    public void update(long chainId, ReplyStream stream, @Nullable Object sender, int replies, long bytes,
                       long wantBytes, Granter granter) {
        List<Runnable> grants;
        lock.lock();
        try {
            StreamKey key = new StreamKey(chainId, stream, sender);
            Stream s = streams.computeIfAbsent(key, k -> new Stream());
            long r = Math.min(replies, Math.max(0, s.replies));
            long b = Math.min(bytes, Math.max(0, s.bytes));
            s.replies -= r;
            s.bytes -= b;
            heldReplies -= r;
            heldBytes -= b;
            if (wantBytes > 0) {
                s.wantBytes = wantBytes;
                s.granter = granter;
                if (waiting == null) {
                    waiting = new LinkedHashSet<>();
                }
                waiting.add(key);
            }
            forgetIfIdle(key, s);
            grants = grantWaiting();
            freed.signalAll();
        } finally {
            lock.unlock();
        }
        grants.forEach(Runnable::run);
    }

    /**
     * A reply of {@code bytes} from stream {@code stream} of chain {@code chainId}, from {@code sender},
     * arrived and waits to be read.
     */
    public void arrived(long chainId, ReplyStream stream, @Nullable Object sender, long bytes) {
        lock.lock();
        try {
            StreamKey key = new StreamKey(chainId, stream, sender);
            Stream s = streams.get(key);
            if (s == null || s.replies < 1 || s.bytes < bytes) {
                if (!overdrawn) {
                    overdrawn = true;
                    log.warn("node '{}' sent a partial reply of chain #{} (hop {}) without room granted for it: "
                            + "a protocol error; the reply is kept", stream.host(), chainId, stream.hop());
                }
            }
            if (s != null) {
                long r = Math.min(1, Math.max(0, s.replies));
                long b = Math.min(bytes, Math.max(0, s.bytes));
                s.replies -= r;
                s.bytes -= b;
                heldReplies -= r;
                heldBytes -= b;
                forgetIfIdle(key, s);
            }
            bufferedReplies++;
            bufferedBytes += bytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits (at most {@code timeout}) for room for one reply produced at this node (interactive mode),
     * and takes it; such replies count one reply and no bytes.
     *
     * @return false if there was no room within {@code timeout}
     */
    public boolean acquireLocal(Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (maxReplies - bufferedReplies - heldReplies < 1) {
                if (left <= 0) {
                    return false;
                }
                left = freed.awaitNanos(left);
            }
            bufferedReplies++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The reader took a reply of {@code bytes} from the buffer: its room goes to the streams that wait. */
    public void consumed(long bytes) {
        List<Runnable> grants;
        lock.lock();
        try {
            bufferedReplies--;
            bufferedBytes -= bytes;
            grants = grantWaiting();
            freed.signalAll();
        } finally {
            lock.unlock();
        }
        grants.forEach(Runnable::run);
    }

    /** Grants room to the waiting streams it can serve now, in the order they asked; runs under the lock. */
    private List<Runnable> grantWaiting() {
        if (waiting == null || waiting.isEmpty()) {
            return List.of();
        }
        List<Runnable> grants = new ArrayList<>(1);
        for (var it = waiting.iterator(); it.hasNext(); ) {
            StreamKey key = it.next();
            Stream s = streams.get(key);
            // grants on their way to the stream count: it needs only what they do not cover
            long needReplies = Math.max(0, 1 - s.replies);
            long needBytes = Math.max(0, s.wantBytes - s.bytes);
            long freeReplies = maxReplies - bufferedReplies - heldReplies;
            long freeBytes = maxBytes - bufferedBytes - heldBytes;
            if (needReplies > 0 || needBytes > 0) {
                long quarter = Math.max(1, maxReplies / 4);
                if (freeReplies < needReplies || freeBytes < needBytes
                        || (freeReplies < quarter && freeReplies + bufferedReplies >= quarter)) {
                    continue; // (the reader will free a quarter of the buffer: wait for it rather than grant crumbs)
                }
                long capReplies = s.lastGrantReplies == 0 ? FIRST_GRANT_REPLIES
                        : Math.min(Math.max(1, maxReplies / 2), 2 * s.lastGrantReplies);
                long capBytes = s.lastGrantBytes == 0 ? FIRST_GRANT_BYTES
                        : Math.min(Math.max(1, maxBytes / 2), 2 * s.lastGrantBytes);
                long replies = Math.min(Integer.MAX_VALUE, Math.max(needReplies, Math.min(freeReplies, capReplies)));
                long bytes = Math.max(needBytes, Math.min(freeBytes, capBytes));
                s.lastGrantReplies = replies;
                s.lastGrantBytes = bytes;
                s.replies += replies;
                s.bytes += bytes;
                heldReplies += replies;
                heldBytes += bytes;
                Granter granter = s.granter;
                grants.add(() -> granter.grant((int) replies, bytes));
            }
            s.wantBytes = 0;
            s.granter = null;
            it.remove();
        }
        return grants;
    }

    /**
     * Forgets the streams of chain {@code chainId} (an attempt of it that is sent again: what its
     * streams hold will never arrive nor be given back), freeing the room they hold for the others.
     */
    public void forgetChain(long chainId) {
        List<Runnable> grants;
        lock.lock();
        try {
            for (var it = streams.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (e.getKey().chainId() == chainId) {
                    heldReplies -= Math.max(0, e.getValue().replies);
                    heldBytes -= Math.max(0, e.getValue().bytes);
                    if (waiting != null) {
                        waiting.remove(e.getKey());
                    }
                    it.remove();
                }
            }
            grants = grantWaiting();
            freed.signalAll();
        } finally {
            lock.unlock();
        }
        grants.forEach(Runnable::run);
    }

    private void forgetIfIdle(StreamKey key, Stream s) {
        if (s.replies == 0 && s.bytes == 0 && s.wantBytes == 0) {
            streams.remove(key);
        }
    }

    /** Replies waiting to be read. */
    public long bufferedReplies() {
        lock.lock();
        try {
            return bufferedReplies;
        } finally {
            lock.unlock();
        }
    }

    /** Streams that hold room or wait for it (for tests). */
    public int streams() {
        lock.lock();
        try {
            return streams.size();
        } finally {
            lock.unlock();
        }
    }
}
