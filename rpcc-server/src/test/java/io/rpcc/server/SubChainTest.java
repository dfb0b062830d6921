package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChain;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nested sub-chains (paper 3.4, Fig. 4) on real nodes, every server on an executor of ONE thread:
 * a service function returns a {@link SubChain}, the server parks its hop without a thread waiting,
 * the sub-chain runs with its creator's chaining function, and its result resumes the parked hop's
 * chaining function at the creator. Results and paths at depth 1 and 3, chains that re-enter
 * servers whose own sub-chains are running, failures, replies, deadlines, cancellation, interactive
 * mode.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SubChainTest {
    static final ChainingFunctionSource PARENT =
            ChainingFunctionSource.javaResource(SubChainTest.class, "/chains/NestParent.java");
    static final ChainingFunctionSource SUB = ChainingFunctionSource.javaResource(SubChainTest.class, "/chains/NestSub.java");
    static Cluster cluster;
    static RpccClient client;
    static final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    static final List<ExecutorService> executors = new ArrayList<>();
    /** What each "nest" hop saw of the deadline, by its spec. */
    static final Map<String, Instant> deadlines = new ConcurrentHashMap<>();
    /** How many times "tag" ran, by its params. */
    static final Map<String, AtomicInteger> tags = new ConcurrentHashMap<>();
    static volatile CountDownLatch waiting = new CountDownLatch(1);
    static volatile CountDownLatch interrupted = new CountDownLatch(1);

    /**
     * The service function of the tests. Its params say what to do: {@code ""}: return "leaf";
     * {@code "!"}: throw; {@code "~N"}: sleep N ms, then "leaf"; {@code "wait"}: block until
     * interrupted; {@code "s/rest"}: reply, then return the sub-chain {@code nest(rest)} at server s,
     * whose chaining function ({@link #SUB}) tags the result at this server.
     */
    static Object nest(Object params) throws InterruptedException {
        String spec = (String) params;
        ChainContext ctx = ChainContext.current();
        deadlines.put(spec, ctx.deadline());
        switch (spec) {
            case "" -> {
                return "leaf";
            }
            case "!" -> throw new IllegalStateException("boom");
            case "wait" -> {
                waiting.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                    throw e;
                }
                return "late";
            }
            default -> {
                if (spec.startsWith("~")) {
                    Thread.sleep(Long.parseLong(spec.substring(1)));
                    return "leaf";
                }
                ctx.preturn("nest@" + ctx.node() + "#" + ctx.hop());
                int slash = spec.indexOf('/');
                String head = slash < 0 ? spec : spec.substring(0, slash);
                String rest = slash < 0 ? "" : spec.substring(slash + 1);
                return composition(SubChain.to(head, "nest").params(rest).chainingFunction(SUB)
                        .state(ChainState.of("at", ctx.node())));
            }
        }
    }

    /**
     * {@code sub} composed or not as the chain's metadata {@value #COMPOSITION} says ({@code on},
     * {@code off}), else as the server says.
     */
    static SubChain composition(SubChain sub) {
        String on = ChainContext.current().metadata().get(COMPOSITION);
        return on == null ? sub : sub.composition(on.equals("on"));
    }

    /** The metadata key that sets the composition of the tests' sub-chains. */
    static final String COMPOSITION = "composition";

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("a", "b", "c", "d")) {
            ExecutorService one = Executors.newSingleThreadExecutor();
            executors.add(one);
            servers.put(name, cluster.server(name, b -> b.executor(one)
                    .service("nest", SubChainTest::nest)
                    .service("tag", p -> {
                        tags.computeIfAbsent(String.valueOf(p), k -> new AtomicInteger()).incrementAndGet();
                        return p + "+" + ChainContext.current().node();
                    })));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        executors.forEach(ExecutorService::shutdownNow);
    }

    static ChainCall chain(String spec) {
        return ChainCall.to("a", "nest").params(spec).chainingFunction(PARENT).state(ChainState.of("tagAt", "d"));
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aSubChainAtDepthOneGivesItsResultToTheParentsChainingFunction(boolean interactive) {
        // a starts b.nest(""); b's "leaf" goes through the sub-chain's function (tagged at its creator a),
        // whose result resumes the parent's function at a, which tags at d
        int before = parked();
        ChainResult r = client.runChain(chain("b").interactive(interactive));
        assertEquals("leaf+a+d", r.value());
        assertEquals(List.of("a", "b", "a", "d"), r.path());
        assertEquals(List.of("nest@a#1"), r.replies());
        assertEquals(before, parked(), "the parked chain was resumed and forgotten");
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void subChainsNestThreeDeepAndReturnInOrder(boolean interactive) {
        int before = parked();
        ChainResult r = client.runChain(chain("b/c/d").interactive(interactive));
        assertEquals("leaf+c+b+a+d", r.value());
        assertEquals(List.of("a", "b", "c", "d", "c", "b", "a", "d"), r.path());
        assertEquals(List.of("nest@a#1", "nest@b#2", "nest@c#3"), r.replies().stream().sorted().toList());
        assertEquals(before, parked());
    }

    @Test
    void aChainReentersServersWhoseOwnSubChainsRunOnOneThreadEach() {
        // a → b (a's sub-chain) → c (b's sub-chain) → b (tag: re-enters b) → a (tag: re-enters a) → d:
        // with one thread per server, a server that waited for its sub-chain would deadlock here
        ChainResult r = client.runChain(chain("b/c").timeout(Duration.ofSeconds(20)));
        assertEquals("leaf+b+a+d", r.value());
        assertEquals(List.of("a", "b", "c", "b", "a", "d"), r.path());
        // and a chain that re-enters the creator inside its own sub-chain: a → b → a (a's sub-chain of b's)
        ChainResult again = client.runChain(chain("b/a").timeout(Duration.ofSeconds(20)));
        assertEquals("leaf+b+a+d", again.value());
        assertEquals(List.of("a", "b", "a", "b", "a", "d"), again.path());
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aFailureInASubChainReachesTheOriginatorTypedWithHopAndPath(boolean interactive) {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(chain("b/c/!").interactive(interactive)));
        assertEquals("c", e.host());
        assertEquals(3, e.hop(), e::getMessage);
        assertEquals(List.of("a", "b", "c"), e.path());
        assertEquals("java.lang.IllegalStateException", e.exceptionName());
        assertEquals("leaf+a+d", client.runChain(chain("b")).value(), "the servers keep serving");
    }

    @Test
    void partialRepliesFromInsideSubChainsReachTheOriginatorBeforeTheSetEnds() {
        ReplySet<String> set = client.startChainWithReplies(chain("b/c/d"), String.class);
        List<String> got = new ArrayList<>();
        set.forEach(got::add);
        assertEquals(List.of("nest@a#1", "nest@b#2", "nest@c#3"), got.stream().sorted().toList());
        assertEquals("leaf+c+b+a+d", set.result().join().value());
        assertEquals(0, set.arrivedAfterEnd());
    }

    @Test
    void theDeadlineReachesSubChainsAndStopsTheirNextHop() throws InterruptedException {
        Instant deadline = Instant.now().plusMillis(800);
        // b's sub-chain sleeps past the deadline at c: the client ends the chain at its deadline, the cancel
        // interrupts c, and the sub-chain's next hop (the tag at b) does not start
        int tagsBefore = tagRuns("leaf");
        long start = System.nanoTime();
        DeadlineExceededException e = assertThrows(DeadlineExceededException.class,
                () -> client.runChain(chain("b/c/~1200").deadline(deadline)));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, e.hop(), e::getMessage);
        assertTrue(tookMillis < 1150, "ended at the deadline, not after c's sleep: " + tookMillis + " ms");
        assertTrue(!deadlines.get("~1200").isAfter(deadline.plusMillis(50)),
                "the sub-chain's hop saw the chain's deadline: " + deadlines.get("~1200") + " vs " + deadline);
        Thread.sleep(800); // c's sleep would have ended by now
        assertEquals(tagsBefore, tagRuns("leaf"), "the tag at b did not start");
    }

    static int tagRuns(String params) {
        AtomicInteger n = tags.get(params);
        return n == null ? 0 : n.get();
    }

    @ParameterizedTest(name = "composition={0}")
    @ValueSource(strings = {"on", "off"})
    void aCancelFollowsTheChainIntoItsSubChain(String composition) throws Exception {
        waiting = new CountDownLatch(1);
        interrupted = new CountDownLatch(1);
        int beforeA = servers.get("a").parkedChains();
        int beforeB = servers.get("b").parkedChains();
        CompletableFuture<ChainResult> f = client.startChain(chain("b/c/wait").metadata(COMPOSITION, composition));
        assertTrue(waiting.await(20, TimeUnit.SECONDS), "the sub-chain's hop started");
        int parks = composition.equals("on") ? 0 : 1; // composed, the return points carry what would be parked
        assertEquals(beforeA + parks, servers.get("a").parkedChains());
        assertEquals(beforeB + parks, servers.get("b").parkedChains());
        f.cancel(true);
        assertTrue(f.isCancelled());
        assertTrue(interrupted.await(20, TimeUnit.SECONDS), "the cancel reached the hop at c, two levels down");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (servers.get("a").parkedChains() + servers.get("b").parkedChains() + inFlight() > beforeA + beforeB
                && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertEquals(beforeA, servers.get("a").parkedChains(), "the creators forgot the cancelled chain");
        assertEquals(beforeB, servers.get("b").parkedChains(), "the creators forgot the cancelled chain");
        assertEquals(0, inFlight());
        assertEquals("leaf+a+d", client.runChain(chain("b")).value(), "the servers keep serving");
    }

    static int parked() {
        return servers.values().stream().mapToInt(RpccServer::parkedChains).sum();
    }

    static int inFlight() {
        return servers.values().stream().mapToInt(RpccServer::hopsInFlight).sum();
    }
}
