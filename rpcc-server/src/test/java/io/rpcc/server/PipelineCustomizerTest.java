package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticRoute;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline hook adds a handler to every connection of a node, inbound and outbound: a byte
 * counter before rpcc's frame decoder sees, over all connections, exactly the bytes the other side
 * wrote.
 */
class PipelineCustomizerTest {
    final Cluster cluster = new Cluster();

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    /** Counts one node's bytes in and out and its connections by direction. */
    static final class Traffic {
        final AtomicLong in = new AtomicLong();
        final AtomicLong out = new AtomicLong();
        final AtomicInteger inbound = new AtomicInteger();
        final AtomicInteger outbound = new AtomicInteger();

        ChannelDuplexHandler handler() {
            return new ChannelDuplexHandler() {
                @Override
                public void handlerAdded(ChannelHandlerContext ctx) {
                    (ctx.channel().parent() != null ? inbound : outbound).incrementAndGet();
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (msg instanceof ByteBuf b) {
                        in.addAndGet(b.readableBytes());
                    }
                    ctx.fireChannelRead(msg);
                }

                @Override
                public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                    if (msg instanceof ByteBuf b) {
                        out.addAndGet(b.readableBytes());
                    }
                    ctx.write(msg, promise);
                }
            };
        }
    }

    @Test
    void aByteCounterSeesEveryConnectionBothWays() throws Exception {
        Traffic server = new Traffic();
        Traffic second = new Traffic();
        Traffic client = new Traffic();
        cluster.server("s1", b -> b.service("echo", p -> p)
                .pipelineCustomizer(p -> p.addBefore("frames", "count", server.handler()))
                .pipelineCustomizer(p -> p.addBefore("frames", "count-2", second.handler())));
        cluster.server("s2", b -> b.service("echo", p -> p));
        RpccClient c = cluster.client(b -> b.pipelineCustomizer(p -> p.addBefore("frames", "count", client.handler())));
        for (int i = 0; i < 5; i++) {
            assertEquals("x" + i, c.runChain(ChainCall.to("s1", "echo").params("x" + i)).value());
        }
        assertEquals(1, client.outbound.get(), "the client's connection to s1");
        assertEquals(1, client.inbound.get(), "s1's connection to the client, for its results");
        assertEquals(1, server.outbound.get(), "s1's connection to the client");
        assertEquals(1, server.inbound.get(), "the client's connection to s1");
        // only the client and s1 talked: each read exactly what the other wrote
        long deadline = System.nanoTime() + 10_000_000_000L;
        while ((client.out.get() != server.in.get() || server.out.get() != client.in.get())
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(client.out.get() > 5 * 20, "HELLO and five requests: " + client.out.get());
        assertEquals(client.out.get(), server.in.get(), "s1 read every byte the client wrote");
        assertEquals(server.out.get(), client.in.get(), "the client read every byte s1 wrote");
        assertEquals(server.in.get(), second.in.get(), "the second customizer's handler saw the same");
        assertEquals(server.out.get(), second.out.get());

        // a chain s1 -> s2: s1 opens a connection to s2, which gets the handler too
        assertEquals("y", c.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "echo"),
                StaticRoute.hop("s2", "echo")), "y")).value());
        assertEquals(2, server.outbound.get(), "s1's connections to the client and to s2");
    }

    @Test
    void aCustomizerThatThrowsClosesTheConnectionAndTheNodeGoesOn() {
        AtomicInteger calls = new AtomicInteger();
        cluster.server("s1", b -> b.service("echo", p -> p).pipelineCustomizer(p -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("first connection refused");
            }
        }));
        // no reconnect backoff: the second chain connects again at once
        RpccClient c = cluster.client(b -> b.connectTimeout(Duration.ofSeconds(2)).reconnectBackoff(Duration.ZERO, Duration.ZERO));
        List<Object> outcomes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try {
                outcomes.add(c.runChain(ChainCall.to("s1", "echo").params("x")).value());
            } catch (RuntimeException e) {
                outcomes.add(e.getClass().getSimpleName());
            }
        }
        assertEquals(List.of("HopUnreachableException", "x"), outcomes);
    }
}
