package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.FlowControlException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChain;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A slow reader slows the producers of its chain down: the buffer never holds more than its bound,
 * nothing is dropped, and a producer that waits too long fails clearly.
 */
class ReplyFlowControlTest {
    static final int BUFFER = 16;
    static final String PAYLOAD = "x".repeat(1024);
    static Cluster cluster;
    static RpccClient client;
    static final AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    static final Set<Channel> cutConnections = ConcurrentHashMap.newKeySet();
    static final AtomicReference<Throwable> cutFailure = new AtomicReference<>();
    static volatile long cutFailedAtNanos;
    static final Set<Channel> relayConnections = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        cluster.server("producer", b -> b.service("flood", p -> flood(p, e -> { })));
        cluster.server("impatient", b -> b
                .replyWriteTimeout(Duration.ofMillis(300))
                .service("flood", p -> flood(p, producerFailure::set)));
        cluster.server("cut", b -> b
                .replyWriteTimeout(Duration.ofSeconds(60))
                .pipelineCustomizer(p -> cutConnections.add(p.channel()))
                .service("flood", p -> flood(p, e -> {
                    cutFailedAtNanos = System.nanoTime();
                    cutFailure.set(e);
                })));
        cluster.server("relay", b -> b
                .pipelineCustomizer(p -> relayConnections.add(p.channel()))
                .service("start", p -> SubChain.to("producer", "flood").params(p))); // its replies pass through here
        client = cluster.client(b -> b.replyBufferSize(BUFFER));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    /** Sends {@code params} (a count) partial replies of about 1 KB, telling {@code onFailure} what a send threw. */
    static Object flood(Object params, Consumer<RuntimeException> onFailure) {
        int n = (Integer) params;
        try {
            for (int i = 0; i < n; i++) {
                ChainContext.current().preturn(i + ":" + PAYLOAD);
            }
        } catch (RuntimeException e) {
            onFailure.accept(e);
            throw e;
        }
        return n;
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
        // (measured before per-connection flow control: 2,848 of 3,000). The producer sends only within
        // the room the set grants, so the bound is exact.
        assertTrue(replies.maxBuffered() <= BUFFER, "max buffered " + replies.maxBuffered());
        assertTrue(replies.maxBuffered() >= BUFFER / 2, "the reader was slow: the buffer filled up, "
                + replies.maxBuffered());
    }

    @Test
    void aProducerThatCannotWaitAnyLongerFailsClearlyInsteadOfDropping() throws Exception {
        producerFailure.set(null);
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("impatient", "flood").params(1_000_000)
                .timeout(Duration.ofSeconds(30)), String.class);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (producerFailure.get() == null && System.nanoTime() < until) {
            Thread.sleep(10); // read nothing: the producer's wait (300 ms) runs out
        }
        int read = 0;
        while (replies.hasMore()) {
            replies.next();
            read++;
        }
        assertEquals(BUFFER, read, "what the buffer held when the producer gave up");
        assertTrue(replies.isPartial());
        assertFalse(replies.timedOut());
        ServiceFunctionException e = assertInstanceOf(ServiceFunctionException.class, replies.error());
        assertEquals(FlowControlException.class.getName(), e.exceptionName());
        assertEquals("impatient", e.host());
        assertEquals(1, e.hop());
        assertInstanceOf(FlowControlException.class, producerFailure.get());
        String message = producerFailure.get().getMessage();
        assertTrue(message.contains("hop 1 at 'impatient'") && message.contains("has not read partial replies for 300 ms"),
                message);
    }

    @Test
    void aProducerWaitingForRoomStopsSoonAfterItsConnectionToTheOriginatorCloses() throws Exception {
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("cut", "flood").params(1_000_000)
                .timeout(Duration.ofSeconds(90)), String.class);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (replies.maxBuffered() < BUFFER && System.nanoTime() < until) {
            Thread.sleep(10); // read nothing: the buffer fills and the producer waits for room
        }
        assertEquals(BUFFER, replies.maxBuffered(), "the buffer filled up");
        Thread.sleep(200); // the producer has asked for room and waits
        long closedAt = System.nanoTime();
        cutConnections.forEach(Channel::close); // the grant it waits for would come on one of these

        until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (cutFailure.get() == null && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        // Before the wait for room watched the connection, the producer waited out its reply write
        // timeout (60 s here) for a grant that could no longer come, its chain alive all along.
        assertInstanceOf(RuntimeException.class, cutFailure.get(), "preturn gave up soon after the close");
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(cutFailedAtNanos - closedAt);
        assertTrue(waitedMs < 10_000, "preturn gave up " + waitedMs + " ms after the connection closed");
        String message = cutFailure.get().getMessage();
        assertTrue(message.contains("closed while hop 1 at 'cut' waited"), message);
        while (replies.hasMore()) {
            replies.next();
        }
        assertTrue(replies.isPartial());
        assertFalse(replies.timedOut(), "the chain ended with the hop's failure, not its timeout");
    }

    @Test
    void aCreatorPassingOnRepliesAsksForRoomAfreshOnTheNextConnection() throws Exception {
        int sent = 3_000;
        ReplySet<String> replies = client.startChainWithReplies(ChainCall.to("relay", "start").params(sent)
                .timeout(Duration.ofSeconds(90)), String.class);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (replies.maxBuffered() < BUFFER && System.nanoTime() < until) {
            Thread.sleep(10); // read nothing: the relay at 'relay' waits for room, the producer fills the relay
        }
        assertEquals(BUFFER, replies.maxBuffered(), "the buffer filled up");
        Thread.sleep(300);
        // the relay's connection to the client (it dials the client's address): its requests for room
        // went out on it, and the grants would come back on it; 'producer' keeps its connections
        int clientPort = client.address().getPort();
        List<Channel> toClient = relayConnections.stream().filter(ch -> ch.remoteAddress() instanceof InetSocketAddress a
                && a.getPort() == clientPort).toList();
        assertFalse(toClient.isEmpty(), "the relay's connection to the client");
        long closedAt = System.nanoTime();
        toClient.forEach(Channel::close);
        int read = 0;
        while (replies.hasMore()) {
            replies.next();
            read++;
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt);
        // Before the relay forgot the streams of a closed connection, the first reply it passed on over the
        // next connection waited out the reply write timeout (30 s), then the next, and so on: it did not
        // ask there for the room it had asked for on the closed one.
        assertTrue(tookMs < 20_000, "the chain ended " + tookMs + " ms after the close, " + read + " replies read");
        assertFalse(replies.timedOut());
        assertEquals(sent, replies.result().join().value());
        // lost: the reply the relay waited to pass on, and any on their way on the closed connection (at
        // most what the client had granted, the buffer's size)
        assertTrue(read >= sent - 2 * BUFFER, read + " of " + sent + " replies read");
    }
}
