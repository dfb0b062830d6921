package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.RequestStream;
import io.rpcc.core.internal.wire.StreamFrames;
import io.rpcc.core.spi.EngineSpi;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data stream this node sends with a hop's REQUEST: read from its source on a thread of its own
 * once the REQUEST is written, in chunks ({@link HopStreams#chunkFor}) within the room its receiver
 * grants (it starts with {@link StreamFrames#INITIAL_WINDOW}), and ended with STREAM_END: complete,
 * or aborted if the source fails or the sender gives the stream up ({@link #discard}). The source is
 * closed in every case. A stream is sent once.
 */
@EngineSpi
public final class OutboundStream implements RequestStream {
    private static final Logger log = LoggerFactory.getLogger(OutboundStream.class);
    /** Stream ids: never reused in the JVM, so unique on every connection. */
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final InputStream source;
    private final String what;
    private Channel claimedBy;
    private boolean started;
    private long credit = StreamFrames.INITIAL_WINDOW;
    private String stopped;
    private long sent;
    private final CompletableFuture<Long> done = new CompletableFuture<>();

    /** A stream of the bytes of {@code source}, described as {@code what} in messages. */
    public OutboundStream(InputStream source, String what) {
        this.source = Objects.requireNonNull(source, "source");
        this.what = what;
    }

    @Override
    public long id() {
        return id;
    }

    /** The source (for a request that stays on this node: read as it is). */
    @Override
    public InputStream input() {
        return source;
    }

    /** Completes with the bytes sent when the stream ended complete, fails when it was aborted. */
    public CompletableFuture<Long> done() {
        return done;
    }

    /**
     * Gives the stream up: an unsent one closes its source, a flowing one stops and its receiver reads
     * a {@link io.rpcc.core.ChainStreamException} saying {@code why}.
     */
    @Override
    public void discard(String why) {
        boolean wasStarted;
        synchronized (this) {
            if (stopped == null) {
                stopped = why;
            }
            wasStarted = started || claimedBy != null;
            notifyAll();
        }
        if (!wasStarted) {
            closeSource();
            done.completeExceptionally(new IOException("stream not sent: " + why));
        }
    }

    synchronized boolean claim(Channel ch) {
        if (claimedBy != null || started || stopped != null) {
            return false;
        }
        claimedBy = ch;
        return true;
    }

    /** Whether no byte of this stream went anywhere yet and it may still go (not claimed, started nor stopped). */
    synchronized boolean unsent() {
        return claimedBy == null && !started && stopped == null;
    }

    synchronized void unclaim() {
        claimedBy = null;
        if (stopped != null) {
            closeSource();
        }
    }

    synchronized void granted(long bytes) {
        credit += bytes;
        notifyAll();
    }

    void stop(String why) {
        synchronized (this) {
            if (stopped == null) {
                stopped = why;
            }
            notifyAll();
        }
    }

    /** Sends the bytes on {@code ch}; on the stream's own thread. */
    void pump(Channel ch, HopStreams streams) {
        synchronized (this) {
            started = true;
        }
        int chunk = streams.chunkFor(ch);
        String abort = null;
        try {
            while (true) {
                long room;
                synchronized (this) {
                    while (credit <= 0 && stopped == null && ch.isActive()) {
                        wait(100);
                    }
                    if (stopped != null) {
                        abort = stopped;
                        break;
                    }
                    if (!ch.isActive()) {
                        abort = "the connection closed";
                        break;
                    }
                    room = credit;
                }
                byte[] buf = new byte[(int) Math.min(room, chunk)];
                int n;
                try {
                    n = source.read(buf, 0, buf.length);
                } catch (IOException | RuntimeException e) {
                    abort = "its source failed: " + e;
                    break;
                }
                if (n < 0) {
                    break;
                }
                if (!streams.awaitWritable(ch, Duration.ofDays(1), this::isStopped)) {
                    synchronized (this) {
                        abort = stopped != null ? stopped : "the connection closed";
                    }
                    break;
                }
                synchronized (this) {
                    credit -= n;
                    sent += n;
                }
                streams.sendFrame(ch, new StreamFrames.Data(id, n == buf.length ? buf : Arrays.copyOf(buf, n)));
            }
        } catch (InterruptedException e) {
            abort = "interrupted";
            Thread.currentThread().interrupt();
        } finally {
            closeSource();
        }
        long total;
        synchronized (this) {
            total = sent;
        }
        if (ch.isActive()) {
            streams.sendFrame(ch, new StreamFrames.End(id, total, abort));
        }
        if (abort == null) {
            done.complete(total);
        } else {
            log.debug("stream {} ({}) ended after {} bytes: {}", id, what, total, abort);
            done.completeExceptionally(new IOException("stream " + id + " (" + what + ") ended after " + total
                    + " bytes: " + abort));
        }
    }

    private synchronized boolean isStopped() {
        return stopped != null;
    }

    private void closeSource() {
        try {
            source.close();
        } catch (IOException e) {
            log.debug("closing the source of stream {} ({}): {}", id, what, e.toString());
        }
    }
}
