package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChain;
import io.rpcc.core.SubChainRecovery;
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
 * The harness of the randomized stress tests ({@link SubChainStressTest},
 * {@link SplitMergeStressTest}; {@link MultiReturnStressTest} uses its driver): hops that reply a random number of times from a random mix of
 * threads, executors, futures and virtual threads that may outlive them, recording every reply
 * before sending it; and a driver that runs thousands of chains, a bounded number at once, and
 * checks for each that its result is right, that the replies received are exactly the replies sent
 * (none lost, none twice) and that none arrived after its set ended, and that nothing hangs; and
 * the random handling of sub-chains (failure handlers that recover or pass on, reply routes,
 * composition), counted, with the checks of the servers it implies.
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
        return run(client, chains, inFlight, start, expected, s -> null);
    }

    /**
     * As {@link #run(RpccClient, int, int, LongFunction, LongFunction)}, except that a chain for which
     * {@code failure} (asked when the chain has ended) gives a text must end with a
     * {@link ServiceFunctionException} whose message contains it, instead of with its expected result.
     */
    long run(RpccClient client, int chains, int inFlight, LongFunction<ReplySet<String>> start,
             LongFunction<Object> expected, LongFunction<String> failure) throws InterruptedException {
        return run(client, chains, inFlight, start, expected, failure, s -> sent.getOrDefault(s, Set.of()));
    }

    /**
     * As {@link #run(RpccClient, int, int, LongFunction, LongFunction, LongFunction)}, checking each
     * chain's replies against {@code expectedReplies} (asked when the chain has ended) instead of
     * those recorded by {@link #replyAtRandom}: for hops whose replies follow a plan the test knows.
     */
    long run(RpccClient client, int chains, int inFlight, LongFunction<ReplySet<String>> start,
             LongFunction<Object> expected, LongFunction<String> failure,
             LongFunction<Set<String>> expectedReplies) throws InterruptedException {
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
                    String fails = failure.apply(s);
                    if (fails != null) {
                        if (!(replies.error() instanceof ServiceFunctionException sfe)
                                || !sfe.remoteMessage().contains(fails)) {
                            problems.add("chain " + s + " should have failed with '" + fails + "': " + replies.error());
                        }
                    } else if (replies.isPartial()) {
                        problems.add("chain " + s + " ended partial: " + replies.error());
                    } else if (!expected.apply(s).equals(replies.result().join().value())) {
                        problems.add("chain " + s + " result " + replies.result().join().value() + ", expected "
                                + expected.apply(s));
                    }
                    if (got.size() != new HashSet<>(got).size()) {
                        problems.add("chain " + s + " duplicate replies " + got);
                    }
                    Set<String> want = expectedReplies.apply(s);
                    if (!new HashSet<>(got).equals(want)) {
                        Set<String> missing = new java.util.TreeSet<>(want);
                        missing.removeAll(got);
                        problems.add("chain " + s + " expected " + want.size() + " replies, got "
                                + got.size() + "; missing " + missing + "; got " + new java.util.TreeSet<>(got));
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
        // a chain declared broken is run again (diagnosis or retry), and the frames of the attempt it
        // replaced then arrive late by design: the stress tests' clients wait a minute before they
        // declare a chain broken, so none is, and every late frame is a fault
        assertEquals(0, client.brokenChains(), "chains declared broken");
        assertEquals(0, client.lateFrames(), "frames for chains that had already finished");
        assertEquals(0, client.chainsInFlight());
        return received.get();
    }

    /** What becomes of a failing sub-chain that gets no handler. */
    enum Unhandled {
        /** Never drawn: a failing sub-chain always gets a handler that recovers. */
        NEVER,
        /** The chain fails with the sub-chain's failure (recorded: {@link #failsChain}). */
        FAILS_CHAIN,
        /** The branch the creator is on fails (a merge function recovers from it). */
        FAILS_BRANCH
    }

    /** Chains whose failing sub-chain has no handler, and whose failure ends the chain. */
    private final Set<Long> failingChains = ConcurrentHashMap.newKeySet();
    final AtomicLong failing = new AtomicLong();
    final AtomicLong recovered = new AtomicLong();
    final AtomicLong unhandled = new AtomicLong();
    /** Failures that a creator's handler passed on (of sub-chains nested in the one it started). */
    final AtomicLong passedOn = new AtomicLong();
    final AtomicLong viaHandler = new AtomicLong();
    final AtomicLong viaCreator = new AtomicLong();
    final AtomicLong straight = new AtomicLong();
    /** Composed sub-chains with a failure handler: their creators park the hop for it. */
    final AtomicLong composedWithHandler = new AtomicLong();

    /**
     * {@code sub}, started by the current hop of chain {@code seed} at a server that composes its
     * sub-chains if {@code serverComposes}, handled as {@code r} draws. If {@code fails} (its first
     * hop will fail), a handler that recovers with {@code ret} (as if the sub-chain had returned it),
     * or, one time in three unless {@code unhandled} is {@link Unhandled#NEVER}, none; else, one time
     * in three, a handler that passes failures (of its nested sub-chains) on. Its replies go through
     * its creator (with a pass-through handler, or the default) or straight to the originator; it is
     * composed or returned as the server says, or either way per call.
     */
    SubChain handled(SubChain sub, Random r, long seed, Object ret, boolean fails, Unhandled unhandled,
                     boolean serverComposes) {
        SubChain out = sub;
        if (fails) {
            failing.incrementAndGet();
            if (unhandled != Unhandled.NEVER && r.nextInt(3) == 0) {
                this.unhandled.incrementAndGet();
                if (unhandled == Unhandled.FAILS_CHAIN) {
                    failingChains.add(seed);
                }
            } else {
                out = out.onFailure(e -> {
                    recovered.incrementAndGet();
                    return SubChainRecovery.recover(ret);
                });
            }
        } else if (r.nextInt(3) == 0) {
            out = out.onFailure(e -> {
                passedOn.incrementAndGet();
                return SubChainRecovery.passOn();
            });
        }
        switch (r.nextInt(3)) {
            case 0 -> viaCreator.incrementAndGet();
            case 1 -> {
                viaHandler.incrementAndGet();
                out = out.onReply((reply, h, host, passOn) -> passOn.accept(reply));
            }
            default -> {
                straight.incrementAndGet();
                out = out.repliesToOriginator();
            }
        }
        out = switch (r.nextInt(3)) {
            case 0 -> out;
            case 1 -> out.composition(true);
            default -> out.composition(false);
        };
        if (out.failureHandler() != null && out.composition().orElse(serverComposes)) {
            composedWithHandler.incrementAndGet(); // its creator parks the hop for the handler
        }
        return out;
    }

    /** The failure chain {@code seed} must end with (see {@link Unhandled#FAILS_CHAIN}), or {@code null}. */
    String failsChain(long seed, String message) {
        return failingChains.contains(seed) ? message : null;
    }

    /** Chains that must fail (see {@link Unhandled#FAILS_CHAIN}). */
    int failingChains() {
        return failingChains.size();
    }

    /**
     * Checks the servers once every chain has ended: no hop in flight, no relayed reply lost, at
     * most the composed sub-chains' handler entries still parked (kept until the chain's deadline,
     * here none, if the sub-chain ended elsewhere without failing: every other parked hop was
     * resumed), and both composed and returned sub-chains among {@code subChains}; returns the
     * number returned to their creators and the number still parked.
     */
    long[] checkServers(List<RpccServer> servers, long subChains) {
        for (RpccServer server : servers) {
            assertEquals(0, server.hopsInFlight(), "hops in flight at " + server.name());
            assertEquals(0, server.relayedRepliesLost(), "replies lost by creators passing them on at " + server.name());
        }
        long returned = servers.stream().mapToLong(RpccServer::subChainReturns).sum();
        assertTrue(returned > subChains / 5 && returned < subChains * 4 / 5,
                "both composed and returned sub-chains: " + returned + " of " + subChains + " returned");
        int parked = servers.stream().mapToInt(RpccServer::parkedChains).sum();
        assertTrue(parked <= composedWithHandler.get(), parked + " parked, " + composedWithHandler.get()
                + " composed sub-chains with a failure handler");
        assertTrue(recovered.get() > 0 && unhandled.get() > 0 && viaHandler.get() > 0 && viaCreator.get() > 0
                && straight.get() > 0 && passedOn.get() > 0 && composedWithHandler.get() > 0,
                "every kind of sub-chain handling: " + handling());
        return new long[] {returned, parked};
    }

    /** The figures of the sub-chains' handling. */
    String handling() {
        return String.format("%d failing: %d recovered by their creator, %d without handler, %d passed on by a "
                        + "handler; %d composed with a failure handler; replies through a handler: %d, through the "
                        + "creator: %d, straight: %d", failing.get(), recovered.get(), unhandled.get(), passedOn.get(),
                composedWithHandler.get(), viaHandler.get(), viaCreator.get(), straight.get());
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
