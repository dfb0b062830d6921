package io.rpcc.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ChainDecorator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A call's listeners are told once, and a cancel does not return before they have been told. */
class DecoratedCallTest {

    @Test
    void aCancelThatLosesTheRaceWaitsUntilTheWinnerHasToldTheListeners() throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger told = new AtomicInteger();
        ChainDecorator slow = start -> ChainDecorator.Decoration.of(start.call(), (result, failure) -> {
            inListener.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            told.incrementAndGet();
        });
        DecoratedCall call = DecoratedCall.decorate(List.of(slow), CALL, ChainDecorator.Mode.FUTURE, false);

        Thread completion = new Thread(() -> call.ended(null, new RuntimeException("completed")));
        completion.start();
        assertTrue(inListener.await(10, TimeUnit.SECONDS));
        CountDownLatch cancelReturned = new CountDownLatch(1);
        Thread cancel = new Thread(() -> {
            call.endedBeforeReturning(null, new RuntimeException("cancelled"));
            cancelReturned.countDown();
        });
        cancel.start();
        assertTrue(!cancelReturned.await(200, TimeUnit.MILLISECONDS), "the cancel returned before the listener was told");
        release.countDown();
        assertTrue(cancelReturned.await(10, TimeUnit.SECONDS));
        assertEquals(1, told.get());
        completion.join();
    }

    @Test
    void aListenerThatCancelsDoesNotWaitForItself() throws Exception {
        AtomicInteger told = new AtomicInteger();
        DecoratedCall[] self = new DecoratedCall[1];
        ChainDecorator cancelling = start -> ChainDecorator.Decoration.of(start.call(), (result, failure) -> {
            told.incrementAndGet();
            self[0].endedBeforeReturning(null, new RuntimeException("cancelled from the listener"));
        });
        self[0] = DecoratedCall.decorate(List.of(cancelling), CALL, ChainDecorator.Mode.FUTURE, false);
        Thread t = new Thread(() -> self[0].ended(null, null));
        t.start();
        t.join(10_000);
        assertTrue(!t.isAlive(), "a listener that cancels its own call deadlocked");
        assertEquals(1, told.get());
    }

    private static final ChainCall CALL = ChainCall.to("s1", "svc");
}
