package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RetryPolicy;
import io.rpcc.client.RetryThrottle;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import io.rpcc.core.testing.HostResources;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The fault-injection suite (issue 14): 500 chains — plain, multi-return, nested and split — over
 * three servers in three emulated sites with asymmetric links and a latency of their own inside each
 * site, while a fault injector cuts and heals links (one or both directions), stalls them, resets
 * their connections, drops connections in the middle of a frame and kills and restarts servers.
 * Clients and servers run with short heartbeats, PINGs and a retry policy. Every chain must end
 * with its right result or a typed {@link ChainException} naming the hop and host; no service
 * function runs twice for a chain on the same server incarnation (within its outcome cache's
 * window); no reply arrives after its set ended or twice, and a chain that succeeds has every reply,
 * even those of attempts that broke (a replayed hop sends its replies again); and once everything is
 * closed, threads and file descriptors are back where they were (buffers are checked by Netty's leak detector, PARANOID in tests).
 */
class FaultInjectionTest {
    /** 500 in {@code ./rpcc test}; {@code ./rpcc soak [chains]} sets more ({@code -Drpcc.faults.chains}). */
    private static final int CHAINS = Integer.getInteger("rpcc.faults.chains", 500);
    private static final int AT_ONCE = 25;
    private static final String EAST = "east";
    private static final String WEST = "west";
    private static final String EU = "eu";
    private static final List<String> SITES = List.of(EAST, WEST, EU);
    private static final List<String> SERVERS = List.of("s1", "s2", "s3");

    /**
     * Chain kinds, each with its shape and its expected result for params {@code p}: LINGER chains'
     * first hop keeps replying from threads it started (one through the context, one a task wrapped
     * by it on a foreign pool) after it handed the chain on, so that kills land on hops that owe
     * replies after the result; CANCELLED chains (multi-return, nested or split, by turns) are
     * cancelled by the client at a random moment.
     */
    enum Kind { PLAIN, MULTI_RETURN, NESTED, SPLIT, LINGER, CANCELLED }

    /** At s1, after its sub-chain (to s3) returned: on to s2, whose result ends the chain. */
    static final ChainingFunctionSource AFTER_SUB = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class AfterSub implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("s2", "hop", result);
                }
            }
            """);

    /** At s1: split to s2 and s3, merged back at s1, which joins the branches' results in order. */
    static final ChainingFunctionSource FAN_OUT = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class FanOut implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    if (!state.contains("merge")) {
                        return NextHop.split(List.of(NextHop.callThenEnd("s2", "hop", result),
                                NextHop.callThenEnd("s3", "hop", result)))
                            .mergeAt("s1", ChainingFunctionSource.SAME, state.with("merge", "yes"));
                    }
                    StringBuilder out = new StringBuilder("[");
                    for (Object o : (List<?>) result) {
                        BranchOutcome b = (BranchOutcome) o;
                        if (!b.succeeded()) {
                            throw b.failure();
                        }
                        out.append(out.length() > 1 ? "|" : "").append(b.value());
                    }
                    return NextHop.end(out.append("]").toString());
                }
            }
            """);

    /** A pool outside rpcc, on which LINGER hops run tasks wrapped by their context. */
    private final java.util.concurrent.ExecutorService foreign = java.util.concurrent.Executors.newCachedThreadPool();

    /** Runs of service functions: (chain tag, server, incarnation) to count. */
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** Runs that ended because their {@code preturn} could not reach the client (counted in {@link #runs} too). */
    private final Map<String, AtomicInteger> runsEndedByPreturn = new ConcurrentHashMap<>();
    /** Each server's incarnation: bumped when the injector restarts it. */
    private final Map<String, AtomicInteger> incarnations = new ConcurrentHashMap<>();

    /**
     * A service function's run at {@code server}'s incarnation {@code incarnation}: the one its
     * server was built in (a hop still running on a killed server, late on a loaded machine, counts
     * for the server that ran it, not for the one restarted in its place).
     */
    private Object hop(String server, int incarnation, Object params) {
        ChainContext ctx = ChainContext.current();
        String key = params + "@" + server + "#" + incarnation;
        runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        if (((String) params).startsWith("m")) {
            try {
                ctx.preturn(params + "@" + server);
            } catch (RuntimeException e) {
                // the reply could not reach the client: the hop fails, retryable, and is not kept, so a retry
                // runs it again (docs/guides/errors-and-retry.md): this run does not count against at-most-once
                runsEndedByPreturn.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                throw e;
            }
        }
        return params;
    }

    private static WanTopology topology() {
        long mb = 1_000_000;
        return WanTopology.builder().site(EAST).site(WEST).site(EU)
                .oneWay(EAST, WEST, Duration.ofMillis(6), 40 * mb).oneWay(WEST, EAST, Duration.ofMillis(9), 10 * mb)
                .oneWay(EAST, EU, Duration.ofMillis(12), 20 * mb).oneWay(EU, EAST, Duration.ofMillis(10), 20 * mb)
                .oneWay(WEST, EU, Duration.ofMillis(15), 10 * mb).oneWay(EU, WEST, Duration.ofMillis(18), 5 * mb)
                .intraSite(Duration.ofMillis(1), 100 * mb)
                .intraSite(WEST, Duration.ofMillis(2), 50 * mb)
                .build();
    }

    @Test // (bounded without a @Timeout, which would cut a soak short: every chain is waited for 60 s at most)
    void fiveHundredChainsUnderRandomFaults() throws Exception {
        HostResources baseline = HostResources.now();
        // the faults' and cancels' choices and times (their interleaving with the chains is the machine's): a fixed
        // seed in the build; other seeds (-Drpcc.faults.seed) explore other faults
        long seed = Long.getLong("rpcc.faults.seed", 1414);
        System.out.println("fault injection: seed " + seed + " (-Drpcc.faults.seed=" + seed + " repeats its choices)");
        SplittableRandom random = new SplittableRandom(seed);
        Map<Kind, AtomicInteger> succeeded = new EnumMap<>(Kind.class);
        Map<Kind, AtomicInteger> failed = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            succeeded.put(k, new AtomicInteger());
            failed.put(k, new AtomicInteger());
        }
        Map<String, AtomicLong> faults = new ConcurrentHashMap<>();
        int missingReplies = 0;
        List<String> missing = new ArrayList<>(); // which chains, to say so
        long longestWaitMs = 0;
        String longestWait = "";
        ClientSummary summary;
        try (WanCluster cluster = WanCluster.of(topology())) {
            WanEmulator wan = cluster.emulator();
            for (int i = 0; i < SERVERS.size(); i++) {
                String name = SERVERS.get(i);
                incarnations.put(name, new AtomicInteger());
                cluster.server(name, SITES.get(i), b -> {
                    int incarnation = incarnations.get(name).get(); // the restart builds the server anew: the next one
                    return b.connectTimeout(Duration.ofMillis(800))
                            .connectionHealth(Duration.ofMillis(300), Duration.ofMillis(400))
                            .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                            .heartbeatNetworkAllowance(Duration.ofMillis(40))
                            .service("hop", p -> hop(name, incarnation, p))
                            .service("linger", p -> linger(name, incarnation, p))
                            .service("nest", p -> {
                                hop(name, incarnation, p);
                                return SubChain.to("s3", "hop").params(p);
                            });
                });
            }
            RpccClient client = cluster.client("client", EAST, b -> b
                    .timeout(Duration.ofSeconds(30))
                    .connectTimeout(Duration.ofMillis(800))
                    .connectionHealth(Duration.ofMillis(300), Duration.ofMillis(400))
                    .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                    .heartbeats(Heartbeats.every(Duration.ofMillis(400), Duration.ofMillis(1500)))
                    .retryPolicy(RetryPolicy.attempts(8).backoff(Duration.ofMillis(50), Duration.ofMillis(800), 2))
                    .retryThrottle(new RetryThrottle(1_000_000, 1, 1)));

            AtomicBoolean done = new AtomicBoolean();
            Thread injector = Thread.ofPlatform().name("fault-injector").start(() ->
                    injectFaults(cluster, wan, random.split(), done, faults));
            try {
                StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "hop"), StaticRoute.hop("s2", "hop"),
                        StaticRoute.hop("s3", "hop"));
                for (int from = 0; from < CHAINS; from += AT_ONCE) {
                    List<Kind> kinds = new ArrayList<>();
                    List<CompletableFuture<ChainResult>> results = new ArrayList<>();
                    List<ReplySet<String>> sets = new ArrayList<>();
                    for (int i = from; i < Math.min(CHAINS, from + AT_ONCE); i++) {
                        Kind kind = Kind.values()[i % Kind.values().length];
                        kinds.add(kind);
                        String tag = tag(kind, i);
                        switch (kind) {
                            case PLAIN -> results.add(client.startChain(ChainCall.along(route, tag)));
                            case MULTI_RETURN -> {
                                ReplySet<String> set = client.startChainWithReplies(ChainCall.along(route, tag), String.class);
                                sets.add(set);
                                results.add(set.result());
                            }
                            case NESTED -> results.add(client.startChain(ChainCall.to("s1", "nest").params(tag)
                                    .chainingFunction(AFTER_SUB).state(ChainState.empty())));
                            case SPLIT -> results.add(client.startChain(ChainCall.to("s1", "hop").params(tag)
                                    .chainingFunction(FAN_OUT).state(ChainState.empty())));
                            case LINGER -> {
                                ReplySet<String> set = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                                        StaticRoute.hop("s1", "linger"), StaticRoute.hop("s2", "hop"),
                                        StaticRoute.hop("s3", "hop")), tag), String.class);
                                sets.add(set);
                                results.add(set.result().thenCombine(set.whenDone(), (r, ended) -> {
                                    if (ended.error() != null) { // the result arrived, but replies are lost
                                        throw new CompletionException(ended.error());
                                    }
                                    return r;
                                }));
                            }
                            case CANCELLED -> {
                                ChainCall call = switch (cancelledShape(i)) {
                                    case 0 -> ChainCall.along(route, tag);
                                    case 1 -> ChainCall.to("s1", "nest").params(tag).chainingFunction(AFTER_SUB)
                                            .state(ChainState.empty());
                                    case 2 -> ChainCall.to("s1", "hop").params(tag).chainingFunction(FAN_OUT)
                                            .state(ChainState.empty());
                                    default -> ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "linger"),
                                            StaticRoute.hop("s2", "hop"), StaticRoute.hop("s3", "hop")), tag);
                                };
                                ReplySet<String> set = client.startChainWithReplies(call, String.class);
                                sets.add(set);
                                results.add(set.result());
                                long after = random.nextInt(300);
                                CompletableFuture.delayedExecutor(after, TimeUnit.MILLISECONDS).execute(set::cancel);
                            }
                        }
                    }
                    int setIndex = 0;
                    for (int k = 0; k < results.size(); k++) {
                        Kind kind = kinds.get(k);
                        String tag = tag(kind, from + k);
                        ReplySet<String> set = kind == Kind.MULTI_RETURN || kind == Kind.LINGER
                                || kind == Kind.CANCELLED ? sets.get(setIndex++) : null;
                        long waitStart = System.nanoTime();
                        List<String> replies = new ArrayList<>();
                        if (set != null) {
                            set.forEach(replies::add);
                        }
                        try {
                            Object value = results.get(k).get(60, TimeUnit.SECONDS).value();
                            assertEquals(expected(kind, tag), value, tag);
                            succeeded.get(kind).incrementAndGet();
                        } catch (ExecutionException | CompletionException e) {
                            Throwable cause = e.getCause();
                            while (cause instanceof CompletionException && cause.getCause() != null) {
                                cause = cause.getCause();
                            }
                            if (!(cause instanceof ChainException ce)) {
                                throw new AssertionError(tag + ": not a typed chain failure", cause);
                            }
                            // heartbeats are on: a chain is detected broken, never left to wait out its timeout
                            assertTrue(!(ce instanceof ChainTimeoutException), () -> tag + " waited out its timeout: "
                                    + ce);
                            assertTrue(kind == Kind.CANCELLED || !(ce instanceof ChainCancelledException),
                                    () -> tag + ": cancelled: " + ce);
                            assertNotNull(ce.host(), () -> tag + ": the failure names no host: " + ce);
                            assertTrue(ce.hop() >= 0, () -> tag + ": the failure names no hop: " + ce);
                            if (failed.get(kind).incrementAndGet() <= 2) {
                                System.out.println("fault injection: " + tag + " failed: " + ce);
                            }
                        }
                        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - waitStart);
                        if (waitedMs > longestWaitMs) {
                            longestWaitMs = waitedMs;
                            longestWait = tag + " (" + kind + ", " + (results.get(k).isCompletedExceptionally()
                                    ? results.get(k).handle((r, x) -> String.valueOf(x)).join() : "succeeded") + ")";
                        }
                        if (set != null) {
                            assertEquals(0, set.arrivedAfterEnd(), tag + ": a reply after the end (seed " + seed + ")");
                            Set<String> distinct = new HashSet<>(replies);
                            // each reply once: a hop replayed or run again sends its replies again, numbered as
                            // before, and the client drops those it delivered
                            assertEquals(distinct.size(), replies.size(), () -> tag + ": a reply twice: " + replies
                                    + ", runs " + runsOf(tag));
                            Set<String> all = kind == Kind.LINGER ? Set.of(tag + "@s1#1", tag + "@s1#2", tag + "@s2",
                                    tag + "@s3") : Set.of(tag + "@s1", tag + "@s2", tag + "@s3");
                            if (kind != Kind.CANCELLED) { // (a cancelled split's branches reply too)
                                assertTrue(all.containsAll(distinct), tag + ": " + replies);
                            }
                            if (!set.isPartial() && kind != Kind.CANCELLED) {
                                // none lost, even of an attempt that broke: the replay sends them
                                missingReplies += all.size() - distinct.size();
                                if (all.size() != distinct.size()) {
                                    missing.add(tag + " (" + kind + ") got " + replies + ", runs " + runsOf(tag));
                                }
                            }
                        }
                    }
                }
            } finally {
                done.set(true);
                injector.join(10_000);
                wan.healAll();
            }
            assertTrue(!injector.isAlive(), "the injector stopped");
            // every side effect ran at most once per server incarnation
            // (but for runs whose preturn failed: the hop did not complete, and runs again)
            runs.forEach((key, n) -> {
                int failedPreturns = runsEndedByPreturn.getOrDefault(key, new AtomicInteger()).get();
                assertTrue(n.get() - failedPreturns <= 1, key + " ran " + n + " times on one incarnation, "
                        + failedPreturns + " of them ended by a preturn that could not reach the client");
            });
            foreign.shutdownNow();
            summary = new ClientSummary(client.stats().retries(), client.stats().lateFrames(), client.brokenChains(),
                    client.chainsInFlight(), client.stats().repliesSentAgain());
            assertEquals(0, summary.inFlight(), "no chain left in flight");
            assertEquals(0, missingReplies, "replies missing from chains that succeeded; " + summary + "; " + missing);
        }
        long total = faults.values().stream().mapToLong(AtomicLong::get).sum();
        int ok = succeeded.values().stream().mapToInt(AtomicInteger::get).sum();
        System.out.println("fault injection: " + CHAINS + " chains, succeeded " + succeeded + ", failed typed " + failed
                + "; faults " + faults + "; " + summary + "; longest wait for a chain " + longestWaitMs + " ms: " + longestWait);
        assertTrue(total >= 20, "faults were injected: " + faults);
        assertTrue(ok >= CHAINS / 2, "most chains recover: " + succeeded + " / failed " + failed);
        for (Kind k : Kind.values()) {
            assertTrue(succeeded.get(k).get() > 0 || k == Kind.CANCELLED, k + " chains succeed under faults");
        }
        assertTrue(failed.get(Kind.CANCELLED).get() > 0, "chains were cancelled: " + failed);
        try {
            HostResources.assertBackTo(baseline, 12, 24, 1L << 40); // (the heap is not what this checks)
        } catch (AssertionError e) { // say where rpcc's threads are
            StringBuilder where = new StringBuilder(e.getMessage());
            Thread.getAllStackTraces().forEach((t, stack) -> {
                if (t.getName().startsWith("rpcc")) {
                    where.append("\n").append(t.getName()).append(" ").append(t.getState());
                    for (int i = 0; i < Math.min(stack.length, 25); i++) {
                        where.append("\n    at ").append(stack[i]);
                    }
                }
            });
            throw new AssertionError(where.toString(), e);
        }
    }

    /**
     * The LINGER hop: counted as {@link #hop}; sends a reply from a thread started through its context
     * and one from a task its context wrapped, on a foreign pool, both after the hop returned (the
     * chain moves on meanwhile), 50-150 ms later.
     */
    private Object linger(String server, int incarnation, Object params) {
        ChainContext ctx = ChainContext.current();
        String key = params + "@" + server + "#" + incarnation;
        runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        Runnable one = () -> later(params + "@" + server + "#1", 50, key);
        ctx.startThread(one);
        foreign.execute(ctx.wrap(() -> later(params + "@" + server + "#2", 150, key)));
        return params;
    }

    private void later(String reply, long afterMs, String key) {
        try {
            Thread.sleep(afterMs);
            ChainContext.current().preturn(reply);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) { // could not reach the client: the hop fails retryably and runs again
            runsEndedByPreturn.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            throw e;
        }
    }

    private Map<String, Integer> runsOf(String tag) {
        Map<String, Integer> out = new java.util.TreeMap<>();
        runs.forEach((k, v) -> {
            if (k.startsWith(tag + "@")) {
                out.put(k, v.get());
            }
        });
        return out;
    }

    private record ClientSummary(long retries, long lateFrames, long brokenChains, int inFlight, long repliesSentAgain) {
    }

    private static String tag(Kind kind, int i) { // "m": its hops send partial replies
        return (kind == Kind.MULTI_RETURN || kind == Kind.LINGER || kind == Kind.CANCELLED ? "m" : "c") + i;
    }

    private static Object expected(Kind kind, String tag) {
        return kind == Kind.SPLIT || (kind == Kind.CANCELLED && cancelledShape(Integer.parseInt(tag.substring(1))) == 2)
                ? "[" + tag + "|" + tag + "]" : tag;
    }

    /**
     * The shape of CANCELLED chain number {@code i}: along the route (replies from the service functions'
     * threads), nested, split, or LINGER's (replies from a thread started through the context and a
     * wrapped task on a foreign pool, after the hop handed the chain on).
     */
    private static int cancelledShape(int i) {
        return (i / Kind.values().length) % 4;
    }

    /**
     * One fault at a time, at random, until {@code done}: a link cut both ways or one way, or stalled,
     * for 150–700 ms; its connections reset; a connection dropped mid-frame; a server killed and
     * restarted 150–700 ms later. Between faults, 50–250 ms of calm.
     */
    private void injectFaults(WanCluster cluster, WanEmulator wan, SplittableRandom r, AtomicBoolean done,
                              Map<String, AtomicLong> faults) {
        try {
            while (!done.get()) {
                Thread.sleep(50 + r.nextInt(200));
                String a = SITES.get(r.nextInt(SITES.size()));
                String b = SITES.get(r.nextInt(SITES.size()));
                if (a.equals(b)) {
                    b = SITES.get((SITES.indexOf(a) + 1) % SITES.size());
                }
                long hold = 150 + r.nextInt(550);
                int kind = r.nextInt(6);
                String name = switch (kind) {
                    case 0 -> "cut both ways";
                    case 1 -> "cut one way";
                    case 2 -> "stall";
                    case 3 -> "reset";
                    case 4 -> "drop mid-frame";
                    default -> "kill and restart";
                };
                faults.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
                switch (kind) {
                    case 0 -> {
                        wan.cutBoth(a, b);
                        Thread.sleep(hold);
                        wan.healBoth(a, b);
                    }
                    case 1 -> {
                        wan.cut(a, b);
                        Thread.sleep(hold);
                        wan.heal(a, b);
                    }
                    case 2 -> {
                        wan.stall(a, b);
                        Thread.sleep(hold);
                        wan.heal(a, b);
                    }
                    case 3 -> wan.reset(a, b);
                    case 4 -> wan.dropMidFrame(a, b);
                    default -> {
                        String server = SERVERS.get(r.nextInt(SERVERS.size()));
                        cluster.kill(server);
                        Thread.sleep(hold);
                        incarnations.get(server).incrementAndGet();
                        cluster.restart(server);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            e.printStackTrace();
            fail("the injector failed: " + e);
        }
    }
}
