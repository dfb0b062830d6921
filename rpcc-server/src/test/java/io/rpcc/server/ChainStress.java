package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * The harness of the randomized composition stress tests ({@link SubChainStressTest},
 * {@link SplitMergeStressTest}): hops that reply a random number of times from a random mix of
 * threads, executors, futures and virtual threads that may outlive them, recording every reply
 * before sending it; and a driver that runs thousands of chains, a bounded number at once, and
 * checks for each that its result is right, that the replies received are exactly the replies sent
 * (none lost, none twice) and that none arrived after its set ended, and that nothing hangs.
 */
final class ChainStress implements AutoCloseable {
    /** The replies the servers sent, by chain seed: recorded before each {@code preturn}. */
    private final Map<Long, Set<String>> sent = new ConcurrentHashMap<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(8);

    /**
     * Replies from the current hop of chain {@code seed} as {@code r} decides: 0 to 3 tasks of 0 to 3
     * replies each, some delayed, run on the hop's thread or on threads that may outlive the hop.
     * Each reply ({@code seed:tag:task:i}) is unique if {@code tag} is unique within the chain.
     */
    void replyAtRandom(Random r, long seed, String tag) {
        ChainContext ctx = ChainContext.current();
        int tasks = r.nextInt(4);
        for (int t = 0; t < tasks; t++) {
            int replies = r.nextInt(4);
            int delayMicros = r.nextInt(3) == 0 ? r.nextInt(2000) : 0;
            int id = t;
            Runnable body = () -> {
                if (delayMicros > 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(delayMicros));
                }
                for (int i = 0; i < replies; i++) {
                    String reply = seed + ":" + tag + ":" + id + ":" + i;
                    sent.computeIfAbsent(seed, k -> ConcurrentHashMap.newKeySet()).add(reply);
                    ChainContext.current().preturn(reply);
                }
            };
            switch (r.nextInt(5)) {
                case 0 -> body.run();
                case 1 -> ctx.startVirtualThread(body);
                case 2 -> ctx.executor(pool).execute(body);
                case 3 -> CompletableFuture.runAsync(body, ctx.executor(pool));
                default -> pool.execute(ctx.wrap(body));
            }
        }
    }

    /**
     * Starts chains {@code 1..chains} with {@code start}, at most {@code inFlight} at once, and checks
     * each one's result against {@code expected} and its replies against those sent; then that no
     * reply arrived after its set ended and no frame after its chain finished. Returns the number of
     * replies received.
     */
    long run(RpccClient client, int chains, int inFlight, LongFunction<ReplySet<String>> start,
             LongFunction<Object> expected) throws InterruptedException {
        Semaphore window = new Semaphore(inFlight);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ReplySet<String>> sets = new ConcurrentLinkedQueue<>();
        AtomicLong received = new AtomicLong();
        for (long seed = 1; seed <= chains; seed++) {
            window.acquire();
            long s = seed;
            ReplySet<String> replies = start.apply(s);
            sets.add(replies);
            replies.whenDone().whenComplete((set, e) -> {
                try {
                    List<String> got = new ArrayList<>();
                    while (replies.hasMore()) { // the set has ended: this never blocks
                        got.add(replies.next());
                    }
                    received.addAndGet(got.size());
                    if (replies.isPartial()) {
                        problems.add("chain " + s + " ended partial: " + replies.error());
                    } else if (!expected.apply(s).equals(replies.result().join().value())) {
                        problems.add("chain " + s + " result " + replies.result().join().value() + ", expected "
                                + expected.apply(s));
                    }
                    if (got.size() != new HashSet<>(got).size()) {
                        problems.add("chain " + s + " duplicate replies " + got);
                    }
                    Set<String> expectedReplies = sent.getOrDefault(s, Set.of());
                    if (!new HashSet<>(got).equals(expectedReplies)) {
                        problems.add("chain " + s + " expected " + expectedReplies.size() + " replies, got "
                                + got.size());
                    }
                } catch (RuntimeException ex) {
                    problems.add("chain " + s + ": " + ex);
                } finally {
                    window.release();
                }
            });
        }
        assertTrue(window.tryAcquire(inFlight, 5, TimeUnit.MINUTES), "every chain ended");
        Thread.sleep(300); // anything still on its way would now arrive as a late frame
        assertEquals(List.of(), List.copyOf(problems).subList(0, Math.min(20, problems.size())));
        int afterEnd = 0;
        for (ReplySet<String> r : sets) {
            afterEnd += r.arrivedAfterEnd();
        }
        assertEquals(0, afterEnd, "replies that arrived after their set ended");
        assertEquals(0, client.lateFrames(), "frames for chains that had already finished");
        assertEquals(0, client.chainsInFlight());
        return received.get();
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
