package io.rpcc.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.wire.ChainSecret;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The reply streams of a node: hops of the same number at the same host (branches of a split)
 * share one stream, and a stream's room goes back to the originator before a stream under the
 * same name can ask for room again (else the originator would count the old stream's room as a
 * grant on its way to the new one, and grant it nothing).
 */
class ReplyStreamsTest {
    private final ReplyStreams streams = new ReplyStreams();
    private final ChainSecret secret = ChainSecret.random();

    @Test
    void hopsOfTheSameNumberAtTheSameHostShareAStreamUntilTheLastOneEnds() throws Exception {
        SendWindow a = streams.open(7, secret, 2, "w3");
        SendWindow b = streams.open(7, secret, 2, "w3");
        assertSame(a, b);
        assertTrue(streams.grant(7, secret, 2, "w3", 8, 1000));
        assertTrue(a.acquire(10, Duration.ZERO, (r, bytes, want) -> { }, () -> { }));
        List<String> givenBack = new CopyOnWriteArrayList<>();
        streams.release(7, secret, 2, "w3", a, (r, bytes, want) -> givenBack.add(r + "/" + bytes));
        assertEquals(List.of(), givenBack, "another hop still uses the stream");
        assertEquals(1, streams.size());
        streams.release(7, secret, 2, "w3", b, (r, bytes, want) -> givenBack.add(r + "/" + bytes));
        assertEquals(List.of("7/990"), givenBack);
        assertEquals(0, streams.size());
        assertFalse(streams.grant(7, secret, 2, "w3", 8, 1000), "a grant for an ended stream is given back");
        assertNotSame(a, streams.open(7, secret, 2, "w3"));
    }

    @Test
    void aStreamOpenedUnderTheSameNameWaitsUntilTheRoomOfTheEndedOneIsOnItsWay() throws Exception {
        SendWindow old = streams.open(7, secret, 2, "w3");
        assertTrue(streams.grant(7, secret, 2, "w3", 8, 1000));
        CountDownLatch givingBack = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        List<String> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> ending = CompletableFuture.runAsync(() -> streams.release(7, secret, 2, "w3", old,
                (r, bytes, want) -> {
                    givingBack.countDown();
                    try {
                        proceed.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    events.add("room given back: " + r);
                }));
        assertTrue(givingBack.await(10, TimeUnit.SECONDS));
        CompletableFuture<SendWindow> opening = new CompletableFuture<>();
        Thread next = Thread.ofPlatform().start(() -> {
            SendWindow w = streams.open(7, secret, 2, "w3");
            events.add("new stream opened");
            opening.complete(w);
        });
        // the new hop's open waits for the old stream's lock (it would otherwise return at once)
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (next.getState() != Thread.State.WAITING && !opening.isDone() && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        proceed.countDown();
        ending.get(10, TimeUnit.SECONDS);
        SendWindow fresh = opening.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("room given back: 8", "new stream opened"), events);
        assertNotSame(old, fresh);
        assertEquals(1, streams.size());
    }
}
