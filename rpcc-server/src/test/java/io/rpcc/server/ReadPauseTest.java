package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.Refusal;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.HostResources;
import io.rpcc.core.testing.RawPeer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A peer that sends requests and never reads their results: the node stops reading its requests
 * once half the write-queue limit waits for it (no more of them run, nothing is closed, others are
 * served), reads them again once it reads, and closes its connection if it reads nothing for the
 * write-stall timeout. Two busy servers that send each other large payloads both ways, pausing each
 * other's reads on the way, do not deadlock.
 */
class ReadPauseTest {
    static final int RESULT_CHARS = 60_000;
    static final String PADDING = "p".repeat(50_000);

    final Cluster cluster = new Cluster();

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    /** A server whose "big" service counts its runs and returns 60 KB; 16 MiB write queue, pausing at 8 MiB. */
    private RpccServer server(String name, AtomicInteger runs, Duration writeStallTimeout) {
        return cluster.server(name, b -> b
                .maxFrameSize(1 << 20)
                .maxQueuedWriteBytes(16L << 20)
                .writeStallTimeout(writeStallTimeout)
                .service("echo", p -> p)
                // idempotent: the flood sends one chain's request again and again, and each is to run
                // (the outcome cache would replay it instead)
                .idempotentService("big", p -> {
                    runs.incrementAndGet();
                    return "x".repeat(RESULT_CHARS);
                }));
    }

    /**
     * A deaf peer: after the HELLOs both ways, sends REQUESTs for "big" (50 KB each) from a thread of
     * its own for as long as it can, and reads none of the results.
     */
    private static Thread flood(RawPeer p) throws IOException {
        p.listener.setReceiveBufferSize(4096); // for the node's connection back, where results go
        p.handshake();
        byte[] request = RawPeer.bytes(p.request(1, "big", PADDING));
        p.send(request);
        p.backChannel(); // answers the node's HELLO on the connection back, then reads nothing
        return Thread.ofPlatform().daemon().name("deaf-sender").start(() -> {
            try {
                while (true) {
                    p.send(request);
                }
            } catch (IOException e) {
                // the peer closed, or the node did
            }
        });
    }

    @Test
    void aPeerThatDoesNotReadHasItsRequestsPausedUntilItReads() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        RpccServer server = server("patient", runs, Duration.ofMinutes(2));
        RpccClient client = cluster.client();
        assertEquals("alive", client.call("patient", "echo", "alive").join().value());
        HostResources baseline = HostResources.now();
        long connectionsBefore = server.stats().connectionsOpen();
        Thread sender;
        try (RawPeer p = new RawPeer("deaf", server.address())) {
            sender = flood(p);
            int paused = awaitNoGrowth(runs, Duration.ofSeconds(2), Duration.ofSeconds(30));
            assertTrue(paused > 1, "the deaf peer's first requests ran (" + paused + ")");
            for (int i = 0; i < 20; i++) { // others are served meanwhile
                assertEquals(i, client.call("patient", "echo", i).get(10, TimeUnit.SECONDS).value());
            }
            Thread.sleep(1000);
            assertEquals(paused, runs.get(), "no more of the deaf peer's requests ran while it did not read");
            assertEquals(0, server.stats().refused(Refusal.WRITE_QUEUE_FULL), "the write queue stayed under its limit");
            assertEquals(0, server.stats().refused(Refusal.WRITE_STALLED));

            Thread drain = p.drainBackChannel(); // it reads now: its requests are read and run again
            awaitAtLeast(runs::get, paused + 20);
            assertEquals(0, server.stats().refused(Refusal.WRITE_QUEUE_FULL));
            p.close();
            drain.join(10_000);
        }
        sender.join(10_000);
        assertTrue(!sender.isAlive(), "the deaf peer's sender ended");
        awaitAtMost(() -> server.stats().connectionsOpen(), connectionsBefore);
        assertEquals("alive", client.call("patient", "echo", "alive").join().value());
        HostResources.assertBackTo(baseline, 8, 16, 48L << 20);
    }

    @Test
    void aConnectionWhosePeerReadsNothingForTheStallTimeoutIsClosed() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        RpccServer server = server("impatient", runs, Duration.ofSeconds(2));
        RpccClient client = cluster.client();
        assertEquals("alive", client.call("impatient", "echo", "alive").join().value());
        Thread sender;
        try (RawPeer p = new RawPeer("deaf", server.address())) {
            sender = flood(p);
            awaitAtLeast(() -> server.stats().refused(Refusal.WRITE_STALLED), 1);
            assertTrue(p.closedWithin(10_000), "the node closed its stalled connection to the deaf peer");
            assertEquals(0, server.stats().refused(Refusal.WRITE_QUEUE_FULL));
        }
        sender.join(10_000);
        assertEquals("alive", client.call("impatient", "echo", "alive").join().value());
    }

    @Test
    void twoBusyServersSendingLargePayloadsBothWaysDoNotDeadlock() throws Exception {
        Queue<Channel> channels = new ConcurrentLinkedQueue<>();
        List<RpccServer> servers = new ArrayList<>();
        for (String name : List.of("s1", "s2")) {
            servers.add(cluster.server(name, b -> b
                    .maxFrameSize(1 << 20)
                    .maxQueuedWriteBytes(8L << 20) // reads pause above 4 MiB queued to the other server
                    .pipelineCustomizer(pipe -> { // small socket buffers: what is in flight queues in the node
                        pipe.channel().config().setOption(ChannelOption.SO_SNDBUF, 16 * 1024);
                        pipe.channel().config().setOption(ChannelOption.SO_RCVBUF, 16 * 1024);
                        channels.add(pipe.channel());
                    })
                    .service("pass", p -> p)));
        }
        RpccClient a = cluster.client();
        RpccClient b = cluster.client();
        StaticRoute there = StaticRoute.of(StaticRoute.hop("s1", "pass"), StaticRoute.hop("s2", "pass"),
                StaticRoute.hop("s1", "pass"));
        StaticRoute back = StaticRoute.of(StaticRoute.hop("s2", "pass"), StaticRoute.hop("s1", "pass"),
                StaticRoute.hop("s2", "pass"));
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger pausesSeen = new AtomicInteger();
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            while (running.get()) {
                if (channels.stream().anyMatch(c -> c.isActive() && !c.config().isAutoRead())) {
                    pausesSeen.incrementAndGet();
                }
                LockSupport.parkNanos(200_000);
            }
        });
        // 7 chains at a time each way, 512 KiB each: 7 MiB in flight, under the write-queue limit
        // (so nothing may be cut off), over the pause limit of either server
        Semaphore inFlight = new Semaphore(14);
        List<CompletableFuture<ChainResult>> chains = new ArrayList<>();
        try {
            for (int i = 0; i < 60; i++) {
                String payload = (char) ('a' + i % 26) + "x".repeat(512 * 1024 - 1);
                inFlight.acquire();
                CompletableFuture<ChainResult> c = (i % 2 == 0 ? a : b).startChain(ChainCall.along(i % 2 == 0 ? there : back,
                        payload));
                c.whenComplete((r, e) -> inFlight.release());
                chains.add(c);
            }
            CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            watcher.join();
        }
        for (int i = 0; i < chains.size(); i++) {
            String value = (String) chains.get(i).join().value();
            assertEquals(512 * 1024, value.length());
            assertEquals((char) ('a' + i % 26), value.charAt(0));
        }
        for (RpccServer s : servers) {
            assertEquals(0, s.stats().refused(Refusal.WRITE_STALLED), s.name());
            assertEquals(0, s.stats().refused(Refusal.WRITE_QUEUE_FULL), s.name());
        }
        assertTrue(pausesSeen.get() > 0, "a server paused reading the other's requests at least once");
    }

    /** Waits until {@code counter} stops growing for {@code quiet}; returns its value then. */
    private static int awaitNoGrowth(AtomicInteger counter, Duration quiet, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        int last = counter.get();
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(100);
            int now = counter.get();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since >= quiet.toNanos()) {
                return now;
            }
        }
        fail("the deaf peer's requests kept running: " + counter.get() + " after " + within.toSeconds() + " s");
        return -1;
    }

    /** Waits up to 30 s: on a loaded machine, filling the socket buffers and the queue takes a while. */
    private static void awaitAtLeast(LongSupplier counter, long atLeast) throws InterruptedException {
        for (int i = 0; i < 1200 && counter.getAsLong() < atLeast; i++) {
            Thread.sleep(25);
        }
        assertTrue(counter.getAsLong() >= atLeast, "expected at least " + atLeast + ", got " + counter.getAsLong());
    }

    private static void awaitAtMost(LongSupplier counter, long atMost) throws InterruptedException {
        for (int i = 0; i < 400 && counter.getAsLong() > atMost; i++) {
            Thread.sleep(25);
        }
        assertTrue(counter.getAsLong() <= atMost, "expected at most " + atMost + ", got " + counter.getAsLong());
    }
}
