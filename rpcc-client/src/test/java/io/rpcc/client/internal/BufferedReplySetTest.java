package io.rpcc.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ReplyWindow;
import io.rpcc.core.internal.wire.ReplyStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's {@link io.rpcc.client.ReplySet} implementation, fed through its sink as the chain's
 * originator feeds it: reading, the one-pass views, the publisher's demand, the end by result, error,
 * timeout and cancel, and the exact bound that its window grants producers.
 */
class BufferedReplySetTest {
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private BufferedReplySet<String> set(int capacity, long capacityBytes) {
        return new BufferedReplySet<>(String.class, capacity, capacityBytes, executor);
    }

    private static ChainResult result(Object value) {
        return new ChainResult(value, "client", List.of("s"), List.of(), List.of(), Duration.ZERO, true, List.of());
    }

    private static ChainFailure failure(String message) {
        return new ChainFailure("x", message, "s", 2, List.of("s"), List.of(), List.of(), List.of());
    }

    /** Feeds {@code replies} (0 bytes each, as interactive mode does) after taking room in the window. */
    private static void feed(BufferedReplySet<String> set, String... replies) throws InterruptedException {
        ChainOriginator.ReplySink sink = set.sink();
        for (String r : replies) {
            assertTrue(sink.window().acquireLocal(Duration.ofSeconds(5)), "room for " + r);
            sink.onReply(r, 1, "s", 0);
        }
    }

    @Test
    void readsRepliesInArrivalOrderThenEndsWithTheResult() throws Exception {
        BufferedReplySet<String> set = set(16, 1 << 20);
        feed(set, "a", "b");
        assertFalse(set.isDone());
        assertTrue(set.hasMore());
        assertEquals("a", set.next());
        set.resultArrived(result("final"));
        assertEquals("final", set.result().get(5, TimeUnit.SECONDS).value());
        assertFalse(set.isDone(), "a result alone does not end the set: replies may still come");
        feed(set, "c");
        set.finished(null);
        assertTrue(set.isDone());
        assertEquals(List.of("b", "c"), List.of(set.next(), set.next()));
        assertFalse(set.hasMore());
        assertThrows(NoSuchElementException.class, set::next);
        assertEquals(3, set.received());
        assertFalse(set.isPartial());
        assertFalse(set.timedOut());
        assertNull(set.error());
        assertSame(set, set.whenDone().get(5, TimeUnit.SECONDS));
        assertSame(set, set.awaitDone());
        assertEquals(0, set.arrivedAfterEnd());
    }

    @Test
    void hasMoreWaitsForAReplyOrTheEnd() throws Exception {
        BufferedReplySet<String> set = set(4, 1 << 20);
        assertFalse(set.hasMore(Duration.ofMillis(50)), "nothing arrived: the bounded wait gives up");
        CountDownLatch waiting = new CountDownLatch(1);
        var reader = executor.submit(() -> {
            waiting.countDown();
            return set.hasMore() ? set.next() : null;
        });
        waiting.await();
        Thread.sleep(50);
        assertFalse(reader.isDone(), "hasMore() waits while the set is open and empty");
        feed(set, "late");
        assertEquals("late", reader.get(5, TimeUnit.SECONDS));
        var ender = executor.submit(() -> set.hasMore());
        Thread.sleep(50);
        assertFalse(ender.isDone());
        set.finished(null);
        assertFalse(ender.get(5, TimeUnit.SECONDS), "the end wakes a waiting reader");
    }

    @Test
    void iteratesOnceAndStreamsInOrder() throws Exception {
        BufferedReplySet<String> set = set(64, 1 << 20);
        String[] replies = IntStream.range(0, 20).mapToObj(i -> "r" + i).toArray(String[]::new);
        feed(set, replies);
        set.finished(null);
        assertEquals(List.of(replies), set.stream().collect(Collectors.toList()));
        IllegalStateException again = assertThrows(IllegalStateException.class, set::iterator);
        assertTrue(again.getMessage().contains("once"), again.getMessage());

        BufferedReplySet<String> other = set(64, 1 << 20);
        feed(other, "x", "y");
        other.finished(null);
        Iterator<String> it = other.iterator();
        List<String> read = new ArrayList<>();
        it.forEachRemaining(read::add);
        assertEquals(List.of("x", "y"), read);
        assertThrows(IllegalStateException.class, other::stream, "a stream is an iteration too");
    }

    @Test
    void anErrorEndsTheSetPartialAndKeepsWhatArrived() throws Exception {
        BufferedReplySet<String> set = set(8, 1 << 20);
        feed(set, "kept");
        ServiceFunctionException boom = new ServiceFunctionException(failure("boom"));
        set.resultFailed(boom);
        set.finished(null);
        assertTrue(set.isPartial());
        assertFalse(set.timedOut());
        assertSame(boom, set.error());
        CompletionException thrown = assertThrows(CompletionException.class, () -> set.result().join());
        assertSame(boom, thrown.getCause());
        assertEquals("kept", set.next());
    }

    @Test
    void aTimeoutEndsTheSetTimedOut() throws Exception {
        BufferedReplySet<String> set = set(8, 1 << 20);
        feed(set, "kept");
        set.finished(new ChainTimeoutException(failure("no result within 10 ms")));
        assertTrue(set.timedOut());
        assertTrue(set.isPartial());
        assertInstanceOf(ChainTimeoutException.class, set.error());
        assertTrue(set.result().isCompletedExceptionally());
        assertEquals("kept", set.next());
    }

    @Test
    void cancelRunsTheCancellerOnceAndKeepsTheRepliesReceived() throws Exception {
        BufferedReplySet<String> set = set(8, 1 << 20);
        AtomicInteger cancels = new AtomicInteger();
        set.cancelWith(() -> {
            cancels.incrementAndGet();
            set.finished(new ChainCancelledException(failure("cancelled by ReplySet.cancel()")));
        });
        feed(set, "one", "two");
        assertTrue(set.cancel(), "the first cancel ends the set");
        assertFalse(set.cancel(), "the set has ended: nothing more to cancel");
        assertEquals(1, cancels.get());
        assertTrue(set.isDone());
        assertTrue(set.isPartial());
        assertFalse(set.timedOut());
        assertInstanceOf(ChainCancelledException.class, set.error());
        assertTrue(set.result().isCompletedExceptionally());
        assertEquals(List.of("one", "two"), set.stream().toList(), "replies received before the cancel stay readable");
        assertEquals(0, set.arrivedAfterEnd());
    }

    @Test
    void cancelAfterTheEndDoesNothing() {
        BufferedReplySet<String> set = set(8, 1 << 20);
        AtomicInteger cancels = new AtomicInteger();
        set.cancelWith(cancels::incrementAndGet);
        set.finished(null);
        assertFalse(set.cancel());
        assertEquals(0, cancels.get());
        assertNull(set.error());
    }

    @Test
    void aReplyAfterTheEndIsCountedNotReadable() throws Exception {
        BufferedReplySet<String> set = set(8, 1 << 20);
        feed(set, "a");
        set.finished(null);
        set.sink().onReply("late", 1, "s", 0); // a broken termination protocol: the counter shows it
        assertEquals(1, set.arrivedAfterEnd());
        assertEquals(1, set.received());
        assertEquals(List.of("a"), set.stream().toList());
    }

    @Test
    void publisherHonoursDemandThenCompletes() throws Exception {
        BufferedReplySet<String> set = set(16, 1 << 20);
        feed(set, "a", "b", "c", "d", "e");
        set.finished(null);
        Recorder<String> rec = new Recorder<>();
        set.publisher().subscribe(rec);
        Flow.Subscription s = rec.subscription.poll(5, TimeUnit.SECONDS);
        s.request(2);
        assertEquals("a", rec.next());
        assertEquals("b", rec.next());
        assertNull(rec.items.poll(100, TimeUnit.MILLISECONDS), "no more than the demand");
        assertEquals(1, rec.completed.getCount(), "not complete while replies remain");
        s.request(Long.MAX_VALUE);
        assertEquals(List.of("c", "d", "e"), List.of(rec.next(), rec.next(), rec.next()));
        assertTrue(rec.completed.await(5, TimeUnit.SECONDS));
        assertTrue(rec.errors.isEmpty());
    }

    @Test
    void publisherSignalsTheErrorAfterTheRepliesAndHasOneSubscriber() throws Exception {
        BufferedReplySet<String> set = set(16, 1 << 20);
        feed(set, "a");
        ServiceFunctionException boom = new ServiceFunctionException(failure("boom"));
        set.resultFailed(boom);
        set.finished(null);
        Recorder<String> rec = new Recorder<>();
        set.publisher().subscribe(rec);
        rec.subscription.poll(5, TimeUnit.SECONDS).request(10);
        assertEquals("a", rec.next());
        assertTrue(rec.failed.await(5, TimeUnit.SECONDS));
        assertSame(boom, rec.errors.getFirst());
        assertEquals(1, rec.completed.getCount(), "onError, not onComplete");

        Recorder<String> second = new Recorder<>();
        set.publisher().subscribe(second);
        assertTrue(second.failed.await(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, second.errors.getFirst());
    }

    @Test
    void publisherRejectsNonPositiveDemand() throws Exception {
        BufferedReplySet<String> set = set(16, 1 << 20);
        feed(set, "a");
        Recorder<String> rec = new Recorder<>();
        set.publisher().subscribe(rec);
        rec.subscription.poll(5, TimeUnit.SECONDS).request(0);
        assertTrue(rec.failed.await(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalArgumentException.class, rec.errors.getFirst());
        assertTrue(rec.items.isEmpty());
        set.finished(null);
    }

    @Test
    void aFullBufferHoldsBackLocalProducersUntilTheReaderFreesRoom() throws Exception {
        int capacity = 3;
        BufferedReplySet<String> set = set(capacity, 1 << 20);
        ReplyWindow window = set.sink().window();
        feed(set, "1", "2", "3");
        assertFalse(window.acquireLocal(Duration.ofMillis(50)), "a full buffer grants no room");
        assertEquals("1", set.next());
        assertTrue(window.acquireLocal(Duration.ofMillis(50)), "reading frees exactly one reply's room");
        set.sink().onReply("4", 1, "s", 0);
        assertFalse(window.acquireLocal(Duration.ofMillis(50)));
        assertEquals(capacity, set.maxBuffered());
        set.finished(null);
        assertEquals(List.of("2", "3", "4"), set.stream().toList());
    }

    /**
     * Producers that send only within the room they are granted, as servers do, never fill the buffer
     * beyond its bound in replies or in bytes, whatever the reader's speed; every reply arrives.
     */
    @Test
    void grantedRoomKeepsTheBufferWithinItsBoundInRepliesAndBytes() throws Exception {
        int capacity = 10;
        long capacityBytes = 1000;
        int replySize = 300; // three fit in the bytes bound, ten in the replies bound: bytes bind
        int producers = 3;
        int perProducer = 40;
        BufferedReplySet<String> set = set(capacity, capacityBytes);
        ChainOriginator.ReplySink sink = set.sink();
        ReplyWindow window = sink.window();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int hop = p + 1;
            threads.add(Thread.ofVirtual().start(() -> {
                LinkedBlockingQueue<long[]> grants = new LinkedBlockingQueue<>();
                long replies = 0;
                long bytes = 0;
                try {
                    for (int i = 0; i < perProducer; i++) {
                        while (replies < 1 || bytes < replySize) { // give back what is left, ask for one reply's room
                            window.update(7, new ReplyStream(hop, "s" + hop), null, (int) replies, bytes, replySize,
                                    (r, b) -> grants.add(new long[] {r, b}));
                            replies = 0;
                            bytes = 0;
                            long[] g = grants.poll(10, TimeUnit.SECONDS);
                            if (g == null) {
                                throw new AssertionError("producer " + hop + " got no room for reply " + i);
                            }
                            replies += g[0];
                            bytes += g[1];
                        }
                        replies--;
                        bytes -= replySize;
                        window.arrived(7, new ReplyStream(hop, "s" + hop), null, replySize);
                        sink.onReply(hop + ":" + i, hop, "s" + hop, replySize);
                    }
                    window.update(7, new ReplyStream(hop, "s" + hop), null, (int) replies, bytes, 0, null);
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        List<String> read = new ArrayList<>();
        while (read.size() < producers * perProducer) {
            assertTrue(set.hasMore(Duration.ofSeconds(10)), "replies keep coming; read " + read.size());
            read.add(set.next());
            if (read.size() % 7 == 0) {
                Thread.sleep(2); // a slow reader now and then: the producers must wait, not overfill
            }
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertEquals(List.of(), failures);
        set.finished(null);
        assertEquals(producers * perProducer, set.received());
        assertTrue(set.maxBufferedBytes() <= capacityBytes, "at most " + capacityBytes + " bytes buffered, saw "
                + set.maxBufferedBytes());
        assertTrue(set.maxBuffered() <= capacityBytes / replySize, "at most 3 replies of 300 bytes, saw "
                + set.maxBuffered());
        for (int p = 1; p <= producers; p++) { // each producer's replies in its order
            int hop = p;
            List<String> mine = read.stream().filter(r -> r.startsWith(hop + ":")).toList();
            assertEquals(IntStream.range(0, perProducer).mapToObj(i -> hop + ":" + i).toList(), mine);
        }
        assertEquals(0, window.streams(), "every producer gave its room back");
    }

    @Test
    void capacityMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> set(0, 1000));
        assertThrows(IllegalArgumentException.class, () -> set(1, 0));
    }

    /** A subscriber that records what it is signalled. */
    private static final class Recorder<T> implements Flow.Subscriber<T> {
        final LinkedBlockingQueue<Flow.Subscription> subscription = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<T> items = new LinkedBlockingQueue<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final CountDownLatch completed = new CountDownLatch(1);
        final CountDownLatch failed = new CountDownLatch(1);

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.add(s);
        }

        @Override
        public void onNext(T item) {
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {
            errors.add(t);
            failed.countDown();
        }

        @Override
        public void onComplete() {
            completed.countDown();
        }

        T next() throws InterruptedException {
            T t = items.poll(5, TimeUnit.SECONDS);
            if (t == null) {
                throw new AssertionError("no item within 5 s");
            }
            return t;
        }
    }
}
