package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.seq.BlocksInTheMiddle;
import com.example.seq.CallsHelper;
import com.example.seq.CatchesThrowable;
import com.example.seq.Diverging;
import com.example.seq.FailsInTheMiddle;
import com.example.seq.HidesDivergence;
import com.example.seq.ManyCalls;
import com.example.seq.ReadsClock;
import com.example.seq.Shop;
import com.example.seq.SlowInTheMiddle;
import com.example.seq.Spins;
import com.example.seq.SwallowsStop;
import com.example.seq.ThreeHops;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.HopTiming;
import io.rpcc.core.ReplayDivergedException;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.SequentialChain;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.spi.SequentialReplay;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sequential chains on real nodes: straight-line code with typed calls, replayed at every hop,
 * takes the same path a chaining function would, keeps the sandbox's rules and limits, and fails
 * with typed errors naming the hop when it diverges, swallows its stop, or a hop fails.
 */
class SequentialChainTest {
    static Cluster cluster;
    static Cluster trusted;
    static RpccClient client;
    static RpccClient trustedClient;
    static final AtomicInteger cCalls = new AtomicInteger();
    static final CountDownLatch blocked = new CountDownLatch(1);
    static final CountDownLatch sawCancel = new CountDownLatch(1);

    /** The test servers' service: {@link Shop}, as a server named {@code name} implements it. */
    record ShopService(String name) implements Shop {
        @Override
        public String name(String prefix) {
            if (name.equals("c")) {
                cCalls.incrementAndGet();
            }
            return name + ":" + prefix;
        }

        @Override
        public long plus(long a, int b) {
            return a + b;
        }

        @Override
        public String fail(String why) {
            throw new IllegalStateException("no stock at " + name + " for " + why);
        }

        @Override
        public String slow(String why) {
            try {
                Thread.sleep(400);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return why;
        }

        @Override
        public String block(String why) {
            blocked.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                if (ChainContext.current().isCancelled()) {
                    sawCancel.countDown();
                }
            }
            return why;
        }
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        trusted = new Cluster();
        for (String name : List.of("a", "b", "c")) {
            cluster.server(name, b -> b.services(new ShopService(name)));
            trusted.server(name, b -> b.services(new ShopService(name)).withoutSandbox());
        }
        client = cluster.client();
        trustedClient = trusted.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        trusted.close();
    }

    /** The chain's source, read from this module's test sources (as a client ships it). */
    static ChainingFunctionSource source(Class<?> type) {
        try {
            return ChainingFunctionSource.java(Files.readString(Path.of("src/test/java", type.getName().replace('.', '/') + ".java")));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static <I> ChainCall sequential(SequentialChain<I, ?> local, I input) {
        return ChainCall.sequential(source(local.getClass()), local, input);
    }

    static <T extends ChainException> T fails(Class<T> type, RpccClient on, ChainCall call) {
        CompletionException e = assertThrows(CompletionException.class, () -> on.startChain(call).join());
        return assertInstanceOf(type, e.getCause(), () -> String.valueOf(e.getCause()));
    }

    @Test
    void runsServerToServerWithTheResultsPathConsoleAndRepliesOfItsCode() throws Exception {
        ChainCall call = sequential(new ThreeHops(), "x");
        ChainResult r = client.runChain(call);
        assertEquals(List.of("a:x", 42L, "c:z", 3), r.value());
        assertEquals(List.of("a", "b", "c"), r.path());
        List<String> console = r.console().stream().map(l -> l.hop() + " " + l.host() + " " + l.text()).toList();
        // each line once, printed by the hop that first ran it (the code before the first call: by hop 1)
        assertEquals(List.of("1 a start x", "1 a a said a:x", "3 c c said c:z"), console);

        ReplySet<String> replies = client.startChainWithReplies(call, String.class);
        List<String> got = new ArrayList<>();
        while (replies.hasMore()) {
            got.add(replies.next());
        }
        assertEquals(List.of("before a", "after b"), got, "each partial reply once");
        assertEquals(r.value(), replies.result().get().value());

        ChainResult interactive = client.runChain(call.interactive(true));
        assertEquals(r.value(), interactive.value());
        assertEquals(r.path(), interactive.path());
    }

    @Test
    void runsAlikeInFunctionRunnerProcesses() throws Exception {
        try (Cluster isolated = new Cluster()) {
            for (String name : List.of("a", "b", "c")) {
                isolated.server(name, b -> b.services(new ShopService(name))
                        .functionIsolation(FunctionIsolation.PROCESS).functionRunners(1, 1, 8, 96));
            }
            // three servers start their runner processes as the chain reaches them: on a loaded machine
            // (two test JVMs on two cores) that alone can take longer than the cluster's 20 s default
            ChainResult r = isolated.client().runChain(sequential(new ThreeHops(), "x").timeout(Duration.ofSeconds(120)));
            assertEquals(List.of("a:x", 42L, "c:z", 3), r.value());
            assertEquals(List.of("a", "b", "c"), r.path());
            // a runner hands console lines to the chain when the function returns: still each line once
            assertEquals(3, r.console().size(), () -> String.valueOf(r.console()));
        }
    }

    /** A service interface whose method reads a data stream. */
    public interface Uploads {
        @io.rpcc.core.ServiceMethod
        String upload(String name, java.io.InputStream data);
    }

    /** A sequential chain that calls a streaming service method: refused at the call. */
    public static final class CallsAStreamingMethod implements SequentialChain<String, String> {
        @Override
        public String run(io.rpcc.core.Hops hops, String input) {
            return hops.at("a", Uploads.class).upload(input, java.io.InputStream.nullInputStream());
        }
    }

    @Test
    void aTypedCallToAServiceMethodThatReadsADataStreamIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChainCall.sequential(
                ChainingFunctionSource.java("public class Unused {}"), new CallsAStreamingMethod(), "x"));
        assertTrue(e.getMessage().contains("service function 'upload'") && e.getMessage().contains("reads a data stream"),
                e.getMessage());
    }

    @Test
    void theFirstHopIsFoundAtTheClientAndTheInputTravelsInTheState() throws Exception {
        ChainCall call = sequential(new ThreeHops(), "in");
        assertEquals("a", call.server());
        assertEquals("name", call.serviceFunction());
        assertEquals("in", call.params());
        assertEquals("in", call.state().get(SequentialReplay.INPUT));
        assertEquals(List.of("name@a"), call.state().get(SequentialReplay.CALLS));
    }

    @Test
    void aReplayThatMakesAnotherCallFailsWithReplayDivergedNamingTheHop() {
        ReplayDivergedException e = fails(ReplayDivergedException.class, client, sequential(new Diverging(), "x"));
        assertEquals(ChainErrorCode.REPLAY_DIVERGED, e.code());
        assertEquals(1, e.hop());
        assertEquals("b", e.host());
        assertTrue(e.getMessage().contains("made call 1 to name@a, but that call was name@b"), e.getMessage());
    }

    @Test
    void aDivergenceTheFunctionCatchesStillFailsTheChain() {
        ReplayDivergedException e = fails(ReplayDivergedException.class, client, sequential(new HidesDivergence(), "x"));
        assertEquals(1, e.hop());
    }

    @Test
    void aRunThatGoesOnAfterItsStopFailsTheChain() {
        ChainingFunctionException e = fails(ChainingFunctionException.class, client, sequential(new SwallowsStop(), "x"));
        assertEquals(1, e.hop());
        assertTrue(e.getMessage().contains("returned at hop 1 at a after its call name@b (call 2) stopped the run"),
                e.getMessage());
    }

    @Test
    void catchingThrowableIsRefusedBySandboxAndFailsTheChainWithout() {
        SandboxViolationException refused = fails(SandboxViolationException.class, client,
                sequential(new CatchesThrowable(), "x"));
        assertEquals("catch-error", refused.rule());

        ChainingFunctionException swallowed = fails(ChainingFunctionException.class, trustedClient,
                sequential(new CatchesThrowable(), "x"));
        assertTrue(swallowed.getMessage().contains("after its call name@b (call 2) stopped the run"), swallowed.getMessage());
    }

    @Test
    void theSandboxsLimitsStopALoopAndAnAllocation() {
        SandboxViolationException loop = fails(SandboxViolationException.class, client, sequential(new Spins(), "loop"));
        assertTrue(Set.of("cpu-time", "wall-time").contains(loop.rule()), loop.rule());
        assertEquals(1, loop.hop());
        SandboxViolationException memory = fails(SandboxViolationException.class, client, sequential(new Spins(), "allocate"));
        assertEquals("memory", memory.rule());
    }

    @Test
    void clocksAndNonServiceMethodsAreRefusedInASequentialChain() {
        SandboxViolationException clock = fails(SandboxViolationException.class, client, sequential(new ReadsClock(), "x"));
        assertEquals("nondeterminism", clock.rule());
        assertTrue(clock.getMessage().contains("java.lang.System.nanoTime"), clock.getMessage());
        SandboxViolationException helper = fails(SandboxViolationException.class, client, sequential(new CallsHelper(), "x"));
        assertTrue(helper.getMessage().contains("com.example.seq.Shop.helper"), helper.getMessage());
    }

    @Test
    void aFailingMiddleHopReachesTheOriginatorNamingTheHop() {
        int before = cCalls.get();
        ServiceFunctionException e = fails(ServiceFunctionException.class, client, sequential(new FailsInTheMiddle(), "x"));
        assertEquals(2, e.hop());
        assertEquals("b", e.host());
        assertTrue(e.remoteMessage().contains("no stock at b for a:x"), e.remoteMessage());
        assertEquals(before, cCalls.get(), "the chain went no further");
    }

    @Test
    void aDeadlinePastInTheMiddleStopsTheChain() throws Exception {
        int before = cCalls.get();
        DeadlineExceededException e = fails(DeadlineExceededException.class, client,
                sequential(new SlowInTheMiddle(), "x").deadline(Duration.ofMillis(200)));
        assertEquals(ChainErrorCode.DEADLINE_EXCEEDED, e.code());
        Thread.sleep(400);
        assertEquals(before, cCalls.get(), "no hop started after the deadline");
    }

    @Test
    void cancellingMidChainStopsIt() throws Exception {
        int before = cCalls.get();
        CompletableFuture<ChainResult> f = client.startChain(sequential(new BlocksInTheMiddle(), "x"));
        assertTrue(blocked.await(20, TimeUnit.SECONDS));
        assertTrue(f.cancel(true));
        assertTrue(sawCancel.await(20, TimeUnit.SECONDS), "the blocked hop saw the cancel");
        Thread.sleep(300);
        assertEquals(before, cCalls.get(), "no hop after the cancelled one");
    }

    @Test
    void fiftyCallsTakeFiftyHopsAndReplayCostGrowsLinearlyPerHop() throws Exception {
        ChainResult r = client.runChain(sequential(new ManyCalls(), 50));
        assertEquals(50 * 49 / 2L, r.value());
        assertEquals(50, r.hops());
        // the replay at hop k re-runs k calls: the chaining time per hop grows with k (not asserted: timings)
        List<HopTiming> hops = r.timings();
        StringBuilder report = new StringBuilder("sequential chain of 50 calls, chaining µs per hop:");
        for (HopTiming t : hops) {
            report.append(' ').append(t.hop()).append('=').append(t.chainingNanos() / 1000);
        }
        System.out.println(report);
    }

    @Test
    void aChainPastTheMostCallsFailsAtTheCallPastIt() {
        ChainingFunctionException e = fails(ChainingFunctionException.class, client,
                sequential(new ManyCalls(), SequentialReplay.MAX_CALLS + 1));
        assertEquals(SequentialReplay.MAX_CALLS, e.hop());
        assertTrue(e.getMessage().contains("at most " + SequentialReplay.MAX_CALLS + " calls"), e.getMessage());
    }

    @Test
    void aChainThatMakesNoCallIsRefusedAtTheClient() {
        SequentialChain<String, String> none = (hops, input) -> input;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChainCall.sequential(ChainingFunctionSource.java("class X {}"), none, "x"));
        assertTrue(e.getMessage().contains("without making a call"), e.getMessage());
    }
}
