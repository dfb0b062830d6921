package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.FlowControlException;
import io.rpcc.core.ServiceFunctionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A slow reader slows the producers down: memory stays bounded and nothing is dropped. */
class ReplyFlowControlTest {
    static final int BUFFER = 16;
    static final String PAYLOAD = "x".repeat(1024);
    static Cluster cluster;
    static RpccClient client;
    static final AtomicReference<Throwable> producerFailure = new AtomicReference<>();

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        cluster.server("producer", b -> b
                .service("flood", p -> {
                    int n = (Integer) p;
                    for (int i = 0; i < n; i++) {
                        ChainContext.current().preturn(i + ":" + PAYLOAD);
                    }
                    return n;
                }));
        cluster.server("impatient", b -> b
                .replyWriteTimeout(Duration.ofMillis(300))
                .service("flood", p -> {
                    int n = (Integer) p;
                    try {
                        for (int i = 0; i < n; i++) {
                            ChainContext.current().preturn(i + ":" + PAYLOAD);
                        }
                    } catch (RuntimeException e) {
                        producerFailure.set(e);
                        throw e;
                    }
                    return n;
                }));
        client = cluster.client(b -> b.replyBufferSize(BUFFER));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void aSlowConsumerKeepsTheBufferBoundedAndGetsEveryReply() throws Exception {
        int sent = 20_000;
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("producer", "flood").params(sent)
                .timeout(Duration.ofMinutes(2)), String.class);
        int read = 0;
        while (replies.hasMore()) {
            String r = replies.next();
            assertTrue(r.startsWith(read + ":"), "in order");
            read++;
            if (read < 400) {
                Thread.sleep(1); // slow for a while: the producer must wait, not the buffer grow
            }
        }
        assertEquals(sent, read);
        assertFalse(replies.isPartial());
        assertEquals(sent, replies.result().join().value());
        // Without flow control most of the 20,000 replies (20 MB) pile up here while the reader sleeps
        // (measured: 2,848 of 3,000). With it, the buffer holds its 16 plus at most what the read loop
        // in progress had already taken from the socket (Netty reads at most 16 x 64 KiB per loop).
        System.out.println("max buffered: " + replies.maxBuffered());
        assertTrue(replies.maxBuffered() <= BUFFER + 16 * 64, "max buffered " + replies.maxBuffered());
    }

    @Test
    void aProducerThatCannotWaitAnyLongerFailsClearlyInsteadOfDropping() throws Exception {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("impatient", "flood").params(1_000_000)
                .timeout(Duration.ofSeconds(30)), String.class);
        Thread.sleep(1500); // read nothing: the producer's wait (300 ms) runs out
        int read = 0;
        while (replies.hasMore()) {
            replies.next();
            read++;
        }
        assertTrue(read > 0 && read < 1_000_000, "read " + read);
        assertTrue(replies.isPartial());
        ServiceFunctionException e = assertInstanceOf(ServiceFunctionException.class, replies.error());
        assertEquals(FlowControlException.class.getName(), e.exceptionName());
        assertInstanceOf(FlowControlException.class, producerFailure.get());
        assertTrue(producerFailure.get().getMessage().contains("has not read partial replies for 300 ms"),
                producerFailure.get().getMessage());
    }
}
