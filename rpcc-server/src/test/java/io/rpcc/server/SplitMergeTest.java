package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainTimeoutException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChain;
import io.rpcc.core.SubChainRecovery;
import io.rpcc.core.UnknownServerException;
import io.rpcc.repository.InMemoryChainingFunctionRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Split and merge (paper 3.10) on real nodes, every server on an executor of ONE thread (a merge host
 * that held a thread while it waits would deadlock the branches that run on it): fan-out with a merge
 * function, nested splits, failed branches as failed outcomes, the default merge, a stale split
 * dropped after its timeout, deadline and cancellation reaching every branch, a split inside a
 * sub-chain (composed or returned, its replies through its creator), a failure in a sub-chain inside
 * a branch (its creator recovers: the branch goes on; passes it on: a failed outcome at the merge),
 * and interactive mode giving the same results.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SplitMergeTest {
    static final ChainingFunctionSource FAN = ChainingFunctionSource.javaResource(SplitMergeTest.class, "/chains/Fan.java");
    static Cluster cluster;
    static RpccClient client;
    static final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    static final List<ExecutorService> executors = new ArrayList<>();
    static String fanId;
    static volatile CountDownLatch waiting = new CountDownLatch(0);
    static volatile CountDownLatch interrupted = new CountDownLatch(0);

    /** Tags its params with where it ran: {@code params>node(branch/siblings)}, after a partial reply. */
    static Object echo(Object params) {
        ChainContext ctx = ChainContext.current();
        ctx.preturn("r:" + ctx.node() + ":" + ctx.branch());
        return params + ">" + ctx.node() + "(" + ctx.branch() + "/" + ctx.branch().siblings() + ")";
    }

    /** Blocks until interrupted (a cancelled chain interrupts it). */
    static Object block(Object params) throws InterruptedException {
        waiting.countDown();
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
        }
        return "late";
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("a", "b", "c", "d", "e", "m", "stale", "far")) {
            ExecutorService one = Executors.newSingleThreadExecutor();
            executors.add(one);
            Duration staleAfter = name.equals("stale") ? Duration.ofMillis(300) : Duration.ofMinutes(1);
            // "far": every crossing from it costs an hour of a chain's deadline (as if its next hops were that far)
            Duration allowance = name.equals("far") ? Duration.ofHours(1) : NodeBuilder.DEFAULT_DEADLINE_NETWORK_ALLOWANCE;
            servers.put(name, cluster.server(name, b -> b.executor(one).staleBranchTimeout(staleAfter)
                    .deadlineNetworkAllowance(allowance)
                    .service("echo", SplitMergeTest::echo)
                    .service("fail", p -> {
                        throw new IllegalStateException("no shard here");
                    })
                    .service("slow", p -> {
                        Thread.sleep(1500);
                        return p;
                    })
                    .service("block", SplitMergeTest::block)
                    .service("tag", p -> p + "+" + ChainContext.current().node())
                    .service("sub", p -> SubChain.to("b", "echo").params(p).chainingFunction(FAN)
                            .state(state("c:echo,d:echo", "e", "fn", ""))) // merged at e, inside the sub-chain
                    .service("subReturned", p -> SubChain.to("b", "echo").params(p).chainingFunction(FAN)
                            .state(state("c:echo,d:echo", "e", "fn", "")).composition(false)
                            .onReply((reply, hop, host, passOn) -> passOn.accept("via a:" + reply)))
                    .service("subComposed", p -> SubChain.to("b", "echo").params(p).chainingFunction(FAN)
                            .state(state("c:echo,d:echo", "e", "fn", "")).composition(true)
                            .onReply((reply, hop, host, passOn) -> passOn.accept("via a:" + reply)))
                    // a branch's hop that starts a sub-chain failing at c; its handler recovers or passes it on
                    .service("recovering", p -> SubChain.to("c", "fail").params(p).composition(composed(p))
                            .onFailure(e -> SubChainRecovery.recover(p + ">recovered@" + ChainContext.current().node()
                                    + ":" + e.host() + "#" + e.hop())))
                    .service("passing", p -> SubChain.to("c", "fail").params(p).composition(composed(p))
                            .onFailure(e -> SubChainRecovery.passOn()))));
        }
        InMemoryChainingFunctionRepository store = new InMemoryChainingFunctionRepository();
        fanId = store.put(FAN);
        cluster.server("repo", b -> b.repository(store));
        client = cluster.client();
    }

    /** Whether the sub-chain of a "recovering" or "passing" hop is composed: its params say so. */
    static boolean composed(Object params) {
        return !String.valueOf(params).startsWith("returned");
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        executors.forEach(ExecutorService::shutdownNow);
    }

    static ChainState state(String to, String mergeAt, String merge, String then) {
        return ChainState.of("step", "split", "to", to, "mergeAt", mergeAt, "merge", merge, "then", then)
                .with("inner", "");
    }

    static ChainCall fan(String to, String mergeAt, String merge, String then) {
        return ChainCall.to("a", "echo").params("q").chainingFunction(FAN).state(state(to, mergeAt, merge, then));
    }

    static void settled() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < end && servers.values().stream().anyMatch(s -> s.waitingMerges() > 0
                || s.hopsInFlight() > 0)) {
            Thread.onSpinWait();
        }
        for (RpccServer s : servers.values()) {
            assertEquals(0, s.waitingMerges(), "splits waiting at " + s.name());
            assertEquals(0, s.hopsInFlight(), "hops in flight at " + s.name());
        }
    }

    @ParameterizedTest(name = "fan-out {0}, interactive={1}")
    @CsvSource({"2,false", "3,false", "4,false", "2,true", "4,true"})
    void branchesRunAtOnceAndTheMergeFunctionGetsTheirOutcomesInBranchOrder(int n, boolean interactive) {
        List<String> shards = List.of("b", "c", "d", "e").subList(0, n);
        String to = shards.stream().map(s -> s + ":echo").collect(Collectors.joining(","));
        ReplySet<String> set = client.startChainWithReplies(fan(to, "m", "fn", "e").interactive(interactive),
                String.class);
        List<String> replies = new ArrayList<>();
        while (set.hasMore()) {
            replies.add(set.next());
        }
        ChainResult r = set.result().join();
        String first = "q>a(root/1)";
        String expected = IntStream.range(0, n).mapToObj(i -> first + ">" + shards.get(i) + "(" + (i + 1) + "/"
                + (interactive ? 0 : n) + ")").collect(Collectors.joining("|", "[", "]")) + "+e";
        assertEquals(expected, r.value());
        List<String> path = new ArrayList<>(List.of("a"));
        path.addAll(shards);
        path.add("e");
        assertEquals(path, r.path(), "the hops before the split, each branch's in branch order, then after the merge");
        List<String> expectedReplies = new ArrayList<>(List.of("r:a:root"));
        for (int i = 0; i < n; i++) {
            expectedReplies.add("r:" + shards.get(i) + ":" + (i + 1));
        }
        assertEquals(expectedReplies.stream().sorted().toList(), replies.stream().sorted().toList(),
                "every branch's reply, exactly once, before the set ended");
        assertEquals(0, set.arrivedAfterEnd());
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aMergeFunctionFromTheRepositoryRunsAtTheMergeHost(boolean interactive) {
        // the chain's function, and so its merge function (SAME), travels by reference: m fetches it
        ChainingFunctionSource ref = ChainingFunctionSource.reference(fanId, "repo");
        ChainResult r = client.runChain(fan("b:echo,c:echo", "m", "fn", "").chainingFunction(ref)
                .interactive(interactive));
        String s = interactive ? "0" : "2";
        assertEquals("[q>a(root/1)>b(1/" + s + ")|q>a(root/1)>c(2/" + s + ")]", r.value());
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aBranchSplitsAgainAndItsMergeIsItsOutcome(boolean interactive) {
        // a splits into b (which splits into c and d, merged at b) and e; merged at a
        ChainCall call = ChainCall.to("a", "echo").params("q").chainingFunction(FAN)
                .state(state("b:echo:*,e:echo", "", "fn", "").with("inner", "c:echo,d:echo")).interactive(interactive);
        ChainResult r = client.runChain(call);
        String s = interactive ? "0" : "2";
        assertEquals("[[q>a(root/1)>b(1/" + s + ")>c(1.1/" + s + ")|q>a(root/1)>b(1/" + s + ")>d(1.2/" + s + ")]"
                + "|q>a(root/1)>e(2/" + s + ")]", r.value());
        assertEquals(List.of("a", "b", "c", "d", "e"), r.path());
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aFailedBranchReachesTheMergeFunctionAsAFailedOutcome(boolean interactive) {
        ChainResult r = client.runChain(fan("b:echo,c:fail,d:echo", "m", "fn", "").interactive(interactive));
        String s = interactive ? "0" : "3";
        assertEquals("[q>a(root/1)>b(1/" + s + ")|!2:IllegalStateException@c#2|q>a(root/1)>d(3/" + s + ")]",
                r.value());
        assertEquals(List.of("a", "b", "c", "d"), r.path());
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void theDefaultMergeGivesTheListOfResultsOrFailsWithTheFirstError(boolean interactive) {
        ChainResult ok = client.runChain(fan("b:echo,c:echo", "m", "default", "").interactive(interactive));
        String s = interactive ? "0" : "2";
        assertEquals(List.of("q>a(root/1)>b(1/" + s + ")", "q>a(root/1)>c(2/" + s + ")"), ok.value());
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class, () -> client.runChain(
                fan("b:echo,c:fail,d:fail", "", "default", "").interactive(interactive)));
        assertEquals("c", e.host(), "the first failed branch's, in branch order");
        assertEquals(2, e.hop());
        assertEquals(List.of("a", "c"), e.path());
        assertTrue(e.getMessage().contains("[branch 2 of 3]") && e.getMessage().contains("no shard here"),
                e.getMessage());
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aMergeFunctionThatRethrowsABranchFailureFailsTheChainWithThatFailureTyped(boolean interactive) {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class, () -> client.runChain(
                fan("b:echo,c:fail", "m", "fn", "rethrow").interactive(interactive)));
        assertTrue(e.getMessage().contains("gave up on branch 2, which failed at 'c' (hop 2)")
                && e.getMessage().contains("no shard here"), e.getMessage());
        assertEquals("c", e.host(), "where the branch failed, not the merge host");
        assertEquals(2, e.hop());
        assertEquals(List.of("a", "c"), e.path());
        String merge = interactive ? client.name() : "m";
        assertTrue(e.failure().details().contains("the merge function at '" + merge + "' (hop 2) gave up on branch 2 "
                + "by rethrowing its failure"), () -> String.valueOf(e.failure().details()));
        assertFalse(e.isRetryable());
        UnknownServerException u = assertThrows(UnknownServerException.class, () -> client.runChain(
                fan("b:echo,nowhere:echo", "m", "fn", "rethrow").interactive(interactive)));
        assertTrue(u.getMessage().contains("gave up on branch 2, which failed at '" + u.host() + "' (hop " + u.hop()
                + ")"), u.getMessage());
        if (!interactive) {
            assertEquals("a", u.host(), "the branch's first hop could not be sent from a");
            assertEquals(2, u.hop());
        }
        assertEquals("all 2 branches succeeded", client.runChain(fan("b:echo,c:echo", "m", "fn", "rethrow")
                .interactive(interactive)).value());
        settled();
    }

    @Test
    void aBranchThatCannotBeReachedIsAFailedOutcomeAndAnUnknownMergeHostFailsTheSplittingHop() {
        ChainResult r = client.runChain(fan("b:echo,nowhere:echo", "m", "fn", ""));
        assertEquals("[q>a(root/1)>b(1/2)|!2:UnknownServerException@a#2]", r.value(),
                "the branch's first hop (2) could not be sent from a");
        UnknownServerException e = assertThrows(UnknownServerException.class,
                () -> client.runChain(fan("b:echo,c:echo", "nowhere", "fn", "")));
        assertEquals("a", e.host());
        assertEquals(1, e.hop());
        assertTrue(e.getMessage().contains("merge host 'nowhere'"), e.getMessage());
        settled();
    }

    @Test
    void aSplitStillIncompleteAfterTheStaleTimeoutIsDroppedAndCounted() {
        RpccServer m = servers.get("stale");
        client.runChain(fan("b:echo,c:echo", "stale", "fn", "")); // compiled everywhere: only "slow" is slow
        long before = m.stats().droppedBranchOutcomes();
        // b answers at once, c after 1.5 s: the merge host (stale-branch timeout 300 ms) drops b's outcome, then c's
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(
                fan("b:echo,c:slow", "stale", "fn", "").timeout(Duration.ofSeconds(3))));
        assertTrue(e instanceof ChainTimeoutException, e.toString());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (m.stats().droppedBranchOutcomes() < before + 2 && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertEquals(before + 2, m.stats().droppedBranchOutcomes(), "both outcomes dropped");
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void cancellingTheChainReachesEveryBranch(boolean interactive) throws Exception {
        waiting = new CountDownLatch(3);
        interrupted = new CountDownLatch(3);
        CompletableFuture<ChainResult> f = client.startChain(fan("b:block,c:block,d:block", "m", "fn", "")
                .interactive(interactive));
        assertTrue(waiting.await(20, TimeUnit.SECONDS), "every branch started");
        f.cancel(true);
        assertTrue(interrupted.await(20, TimeUnit.SECONDS), "every branch was interrupted");
        settled();
    }

    @Test
    void theTimeoutCancelsEveryBranch() throws Exception {
        waiting = new CountDownLatch(3);
        interrupted = new CountDownLatch(3);
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(
                fan("b:block,c:block,d:block", "m", "fn", "").timeout(Duration.ofMillis(1500))));
        assertTrue(e instanceof ChainTimeoutException, e.toString());
        assertTrue(interrupted.await(20, TimeUnit.SECONDS), "every branch was interrupted when the chain timed out");
        settled();
    }

    @Test
    void theDeadlineReachesEveryBranch() {
        // branch 2 ("far") splits again into d, an hour of deadline away: d's hop would start after the
        // deadline, so it does not run, and its failure comes back through both default merges, naming d
        // and its branch (long before the deadline, at which the client would end the chain itself)
        DeadlineExceededException e = assertThrows(DeadlineExceededException.class, () -> client.runChain(
                ChainCall.to("a", "echo").params("q").chainingFunction(FAN)
                        .state(state("b:echo,far:echo:*", "m", "default", "").with("inner", "d:echo"))
                        .deadline(Duration.ofSeconds(20))));
        assertEquals("d", e.host());
        assertEquals(3, e.hop());
        assertTrue(e.getMessage().contains("[branch 2.1 of 1]"), e.getMessage());
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aSlowBranchEndsTheChainAtItsDeadline(boolean interactive) {
        // branch 2 (c) is slow, then would split again into d: the client ends the chain at its deadline,
        // and d's hop does not start
        long start = System.nanoTime();
        DeadlineExceededException e = assertThrows(DeadlineExceededException.class, () -> client.runChain(
                ChainCall.to("a", "echo").params("q").chainingFunction(FAN)
                        .state(state("b:echo,c:slow:*", "m", "default", "").with("inner", "d:echo"))
                        .deadline(Duration.ofMillis(1000)).interactive(interactive)));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, e.hop(), e::getMessage);
        assertTrue(e.getMessage().contains("did not end by its deadline"), e.getMessage());
        assertTrue(tookMillis >= 900 && tookMillis < 1450, "ended at the deadline, before c's 1.5 s: " + tookMillis);
        settled();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aSplitInsideASubChainMergesThereAndReturnsToItsCreator(boolean interactive) {
        // a's "sub" starts a sub-chain at b whose function splits into c and d, merged at e; the merge
        // ends the sub-chain, whose result resumes a's chaining function (Fan, step "end")
        ChainResult r = client.runChain(ChainCall.to("a", "sub").params("q").chainingFunction(FAN)
                .state(ChainState.of("step", "end")).interactive(interactive));
        assertEquals("[q>b(root/1)>c(1/2)|q>b(root/1)>d(2/2)]", r.value());
        assertEquals(List.of("a", "b", "c", "d"), r.path());
        settled();
    }

    @ParameterizedTest(name = "composed={0}, interactive={1}")
    @CsvSource({"true,false", "false,false", "true,true", "false,true"})
    void aFailureInASubChainInsideABranchGoesToItsCreatorWhoseRecoveryTheBranchGoesOnWith(boolean composed,
                                                                                       boolean interactive) {
        // branch 1 at b starts a sub-chain at c that fails at hop 3; b's handler recovers: branch 1 succeeds
        ChainResult r = client.runChain(ChainCall.to("a", "tag").params(composed ? "q" : "returned")
                .chainingFunction(FAN).state(state("b:recovering,d:echo", "m", "fn", "")).interactive(interactive));
        String first = (composed ? "q" : "returned") + "+a";
        assertEquals("[" + first + ">recovered@b:c#3|" + first + ">d(2/" + (interactive ? 0 : 2) + ")]", r.value());
        assertEquals(List.of("a", "b", "c", "d"), r.path());
        settled();
    }

    @ParameterizedTest(name = "composed={0}, interactive={1}")
    @CsvSource({"true,false", "false,false", "true,true", "false,true"})
    void aFailureInASubChainInsideABranchThatItsCreatorPassesOnIsAFailedOutcomeAtTheMerge(boolean composed,
                                                                                       boolean interactive) {
        ChainResult r = client.runChain(ChainCall.to("a", "tag").params(composed ? "q" : "returned")
                .chainingFunction(FAN).state(state("b:passing,d:echo", "m", "fn", "")).interactive(interactive));
        String first = (composed ? "q" : "returned") + "+a";
        assertEquals("[!1:IllegalStateException@c#3|" + first + ">d(2/" + (interactive ? 0 : 2) + ")]", r.value(),
                "the sub-chain's own failure, typed, with its host and hop");
        settled();
        // the default merge fails the chain with it: the failure names the branch and says where it went
        ChainException e = assertThrows(ServiceFunctionException.class, () -> client.runChain(ChainCall.to("a", "tag")
                .params(composed ? "q" : "returned").chainingFunction(FAN).state(state("b:passing,d:echo", "m", "", ""))
                .interactive(interactive)));
        assertEquals("c", e.host());
        assertEquals(3, e.hop());
        assertTrue(e.remoteMessage().contains("no shard here"), e.remoteMessage());
        assertTrue(e.failure().details().stream().anyMatch(d -> d.contains("passed on by the failure handler of hop 2 "
                + "('passing' at 'b')")), () -> String.valueOf(e.failure().details()));
        if (!interactive) { // the client's merge sees the branch as failed too, but only servers number branches
            assertTrue(e.remoteMessage().contains("[branch 1 of 2]"), e.remoteMessage());
        }
        settled();
    }

    @ParameterizedTest(name = "composed={0}")
    @ValueSource(booleans = {true, false})
    void aSplitInsideASubChainWhoseRepliesGoThroughItsCreatorEndsExactlyComposedOrNot(boolean composed) {
        // a's sub-chain (composed or returned to a) splits at b into c and d, merged at e; the replies of
        // b, c and d go through a's reply handler
        long returnsBefore = servers.get("a").subChainReturns();
        ReplySet<String> set = client.startChainWithReplies(ChainCall.to("a", composed ? "subComposed" : "subReturned")
                .params("q").chainingFunction(FAN).state(ChainState.of("step", "end")), String.class);
        List<String> replies = new ArrayList<>();
        while (set.hasMore()) {
            replies.add(set.next());
        }
        assertEquals("[q>b(root/1)>c(1/2)|q>b(root/1)>d(2/2)]", set.result().join().value());
        assertEquals(List.of("a", "b", "c", "d"), set.result().join().path());
        assertEquals(List.of("via a:r:b:root", "via a:r:c:1", "via a:r:d:2"), replies.stream().sorted().toList());
        assertEquals(0, set.arrivedAfterEnd());
        assertEquals(composed ? 0 : 1, servers.get("a").subChainReturns() - returnsBefore,
                "composed, the merge host e resumes a's chain; returned, the result comes back to a");
        settled();
    }
}
