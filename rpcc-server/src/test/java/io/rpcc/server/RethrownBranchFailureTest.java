package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 1,000 randomized mixed chains (splits nested up to 2 levels, merged at random merge hosts by merge
 * functions that give up on a failed branch by rethrowing its failure, or by the default merge;
 * sub-chains started on branches that fail at another server; every hop sending partial replies;
 * one chain in five in interactive mode): every failure the originator gets names, in
 * {@code host()}, {@code hop()} and the end of {@code path()}, the place where it was thrown (the
 * service function puts that place in its message), and every place its message names is that one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RethrownBranchFailureTest {
    static final int CHAINS = 1000;
    static final ChainingFunctionSource GIVE_UP =
            ChainingFunctionSource.javaResource(RethrownBranchFailureTest.class, "/chains/GiveUp.java");
    /** Where a service function threw: its message says so. */
    static final Pattern THROWN = Pattern.compile("thrown at '([^']+)' hop (\\d+)");
    /** The places a merge's message names. */
    static final Pattern NAMED = Pattern.compile("failed at '([^']+)' \\(hop (\\d+)\\)");
    static Cluster cluster;
    static RpccClient client;
    static final List<RpccServer> servers = new ArrayList<>();
    static final AtomicLong thrown = new AtomicLong();
    static final AtomicLong subChains = new AtomicLong();

    /** Replies once or twice; one time in four starts a sub-chain, without a failure handler, that fails elsewhere. */
    static Object work(Object params) {
        ChainContext ctx = ChainContext.current();
        Random r = new Random((Long) params * 31 + ctx.hop() * 7L + ctx.branch().hashCode());
        for (int i = r.nextInt(3); i > 0; i--) {
            ctx.preturn("work@" + ctx.node() + "#" + ctx.hop());
        }
        if (!ctx.branch().isRoot() && r.nextInt(4) == 0) {
            subChains.incrementAndGet();
            return SubChain.to("g" + (1 + r.nextInt(4)), "boom").params(params).composition(r.nextBoolean());
        }
        return params;
    }

    /** Replies, then throws, naming where. */
    static Object boom(Object params) {
        ChainContext ctx = ChainContext.current();
        ctx.preturn("boom@" + ctx.node() + "#" + ctx.hop());
        thrown.incrementAndGet();
        throw new IllegalStateException("thrown at '" + ctx.node() + "' hop " + ctx.hop() + " on branch " + ctx.branch());
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (int i = 1; i <= 4; i++) {
            servers.add(cluster.server("g" + i, b -> b.service("work", RethrownBranchFailureTest::work)
                    .service("boom", RethrownBranchFailureTest::boom)));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void everyFailureNamesWhereItWasThrownInItsAccessorsAndItsMessage() throws Exception {
        long seed0 = System.nanoTime();
        Random random = new Random(seed0);
        Semaphore inFlight = new Semaphore(32);
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        Map<String, Integer> outcomes = new TreeMap<>();
        AtomicLong rethrown = new AtomicLong();
        List<CompletableFuture<?>> ends = new ArrayList<>();
        for (int i = 0; i < CHAINS; i++) {
            long s = random.nextLong() >>> 8;
            boolean interactive = random.nextInt(5) == 0;
            ChainCall call = ChainCall.to("g" + (1 + random.nextInt(4)), "work").params(s).chainingFunction(GIVE_UP)
                    .state(ChainState.of("mode", "split", "seed", s, "depth", 0)).interactive(interactive);
            inFlight.acquire();
            CompletableFuture<ChainException> failure;
            if (random.nextBoolean()) {
                failure = client.startChain(call).handle((v, e) -> e == null ? null : unwrap(e));
            } else {
                failure = client.startChainWithReplies(call, Object.class).whenDone().thenApply(ReplySet::error);
            }
            ends.add(failure.whenComplete((e, t) -> {
                inFlight.release();
                synchronized (outcomes) {
                    outcomes.merge(e == null ? "completed" : e.getClass().getSimpleName(), 1, Integer::sum);
                }
                if (e != null && e.getMessage().contains("gave up on branch")) {
                    rethrown.incrementAndGet();
                }
                String why = t != null ? "not a chain failure: " + t : e == null ? null : misplaced(e);
                if (why != null) {
                    wrong.add("chain seed " + s + " (" + (interactive ? "interactive" : "chain mode") + "): "
                            + why);
                }
            }));
        }
        CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        String context = "seed " + seed0 + ", outcomes " + outcomes + ", " + rethrown.get() + " rethrown by a merge, "
                + thrown.get() + " thrown, " + subChains.get() + " sub-chains";
        assertTrue(outcomes.getOrDefault("ServiceFunctionException", 0) > CHAINS / 10, context);
        assertTrue(rethrown.get() > CHAINS / 20, context);
        assertEquals(List.of(), List.copyOf(wrong).subList(0, Math.min(wrong.size(), 5)),
                () -> wrong.size() + " failures misplaced (" + context + ")");
        for (RpccServer server : servers) {
            assertEquals(0, server.waitingMerges(), "no split left waiting at " + server.name());
        }
        System.out.println("rethrown branch failures (" + context + "): every failure names where it was thrown");
    }

    /** Why {@code e} does not name where it was thrown, or {@code null} if it does. */
    static String misplaced(ChainException e) {
        if (!(e instanceof ServiceFunctionException)) {
            return "unexpected " + e;
        }
        String message = e.remoteMessage();
        Matcher m = THROWN.matcher(message);
        if (!m.find()) {
            return "no place in: " + e.getMessage();
        }
        String host = m.group(1);
        int hop = Integer.parseInt(m.group(2));
        if (!host.equals(e.host()) || hop != e.hop()) {
            return "thrown at '" + host + "' hop " + hop + ", but host() '" + e.host() + "', hop() " + e.hop() + ": "
                    + e.getMessage();
        }
        if (e.path().isEmpty() || !e.path().getLast().equals(host)) {
            return "thrown at '" + host + "', but the path ends elsewhere: " + e.getMessage();
        }
        Matcher named = NAMED.matcher(message);
        while (named.find()) {
            if (!named.group(1).equals(host) || Integer.parseInt(named.group(2)) != hop) {
                return "the message names '" + named.group(1) + "' hop " + named.group(2) + ", host() '" + e.host()
                        + "' hop() " + e.hop() + ": " + e.getMessage();
            }
        }
        return null;
    }

    private static ChainException unwrap(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof ChainException c) {
            return c;
        }
        throw new IllegalStateException("not a chain failure: " + t, t);
    }
}
