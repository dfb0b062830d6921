package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A 1 GiB stream through a hop whose service function reads slowly: the receiving node never holds
 * more of it than its stream window, however far ahead its sender could go (no timings asserted).
 */
class HopStreamMemoryTest {
    static final long GIB = 1L << 30;
    static final int WINDOW = 2 << 20;
    static Cluster cluster;
    static RpccServer s1;
    static RpccClient client;
    static final AtomicLong peakSeenByReader = new AtomicLong();

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b
                .streamWindowBytes(WINDOW)
                .streamingService("slowCount", (p, in) -> {
                    byte[] buf = new byte[16 * 1024];
                    long total = 0;
                    long sinceNap = 0;
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        total += n;
                        sinceNap += n;
                        if (sinceNap >= (8 << 20)) { // slower than the sender: the window fills
                            sinceNap = 0;
                            peakSeenByReader.accumulateAndGet(in.available(), Math::max);
                            Thread.sleep(20);
                        }
                    }
                    return total;
                }));
        client = cluster.client(b -> b.timeout(Duration.ofMinutes(10)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void aGibibyteThroughAHopHoldsAtMostTheWindowAtTheReceiver() {
        ChainResult r = client.runChain(ChainCall.to("s1", "slowCount").stream(new HopStreamTest.Generated(GIB, 11)));
        assertEquals(GIB, r.value());
        StreamStats stats = s1.streamStats();
        assertTrue(stats.peakBufferedBytes() <= WINDOW, "the receiver held " + stats.peakBufferedBytes()
                + " bytes of the stream at once, over its window of " + WINDOW);
        assertTrue(peakSeenByReader.get() > 0, "the reader was slower than the sender: data waited for it");
        assertEquals(0, stats.bufferedBytes(), "nothing is left buffered once the stream is read");
    }
}
