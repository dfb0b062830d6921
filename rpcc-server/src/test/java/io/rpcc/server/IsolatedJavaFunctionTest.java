package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRunnerPool;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Java chaining functions in function-runner processes ({@link FunctionIsolation#PROCESS}, rpcc
 * issue 26): the attacks that stall or exhaust an in-process sandbox from inside one JDK call fail
 * with a typed error within about the wall-time limit, their runner is killed and replaced, the
 * server keeps answering other clients' chains meanwhile, and none of the server's own threads or
 * heap is touched. Also: application types pass through a runner, the pool keeps warm spares and
 * refuses past its queue, and {@link FunctionIsolation#BY_TRUST} picks the runner for chains from
 * unauthenticated peers only.
 */
public class IsolatedJavaFunctionTest {
    /** An application type, registered with the node: it must pass through a runner. */
    public record Order(String sku, int qty) {
    }

    static final Duration WALL = Duration.ofSeconds(2);
    static Cluster cluster;
    static RpccServer isolated;
    /** One runner, no spare, no queue: a second invocation while one runs is refused. */
    static RpccServer narrow;
    static RpccClient client;
    static RpccClient bystander;

    @BeforeAll
    static void start() {
        cluster = new Cluster(TypeRegistry.of(Order.class));
        isolated = cluster.server("isolated", b -> b
                .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL))
                .functionIsolation(FunctionIsolation.PROCESS)
                .functionRunners(3, 2, 8, 96)
                .service("echo", p -> p));
        narrow = cluster.server("narrow", b -> b
                .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, WALL))
                .functionIsolation(FunctionIsolation.PROCESS)
                .functionRunners(1, 0, 0, 64)
                .service("echo", p -> p));
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(90)));
        bystander = cluster.client(b -> b.timeout(Duration.ofSeconds(90)));
        // the first invocation starts the pool (and compiles in a cold runner)
        assertEquals("x0,x1,x2", bystander.runChain("isolated", "echo", "x", FINE, ChainState.empty()).value());
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    static final ChainingFunctionSource FINE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.*;
            public class Fine implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    List<String> parts = new ArrayList<>();
                    for (int i = 0; i < 3; i++) parts.add(result + "" + i);
                    return NextHop.end(String.join(",", parts));
                }
            }
            """);

    static final ChainingFunctionSource DOUBLE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import io.rpcc.server.IsolatedJavaFunctionTest.Order;
            public class Double implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    ChainContext.current().console().println("in a runner");
                    Order o = (Order) result;
                    return NextHop.end(new Order(o.sku() + state.get("tag"), o.qty() * 2));
                }
            }
            """);

    static ChainingFunctionSource attack(String name, String body) {
        return ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                import java.util.*;
                public class %s implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) throws Exception {
                        %s
                    }
                }
                """.formatted(name, body));
    }

    /** A quadratic search inside one intrinsic (no safepoint poll): stalled a JVM for minutes in-process. */
    static final ChainingFunctionSource QUADRATIC_INDEX_OF = attack("Quadratic", """
            String text = "a".repeat(4 << 20);
            String pattern = "a".repeat(256 << 10) + "b";
            return NextHop.end(text.indexOf(pattern));
            """);
    /** A JDK loop that runs no function code and never ends. */
    static final ChainingFunctionSource ENDLESS_STREAM = attack("Endless", """
            return NextHop.end(java.util.stream.Stream.iterate(0L, java.util.function.UnaryOperator.identity())
                    .limit(Long.MAX_VALUE).count());
            """);
    /** One JDK call that allocates far past the budget (and the runner's heap). */
    static final ChainingFunctionSource JOIN_BLOW_UP = attack("Join", """
            String s = "x".repeat(4 << 20);
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < 64; i++) parts.add(s);
            return NextHop.end(String.join(",", parts).length());
            """);
    static final ChainingFunctionSource TO_STRING_BLOW_UP = attack("Str", """
            String s = "y".repeat(4 << 20);
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < 64; i++) parts.add(s);
            return NextHop.end(parts.toString().length());
            """);

    static final ChainingFunctionSource JOINING_BLOW_UP = attack("Joining", """
            String s = "j".repeat(4 << 20);
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < 64; i++) parts.add(s);
            return NextHop.end(parts.stream().collect(java.util.stream.Collectors.joining()).length());
            """);
    /** Hundreds of millions of elements collected by one JDK call, no function code in the loop. */
    static final ChainingFunctionSource TO_LIST_BLOW_UP = attack("ToList", """
            return NextHop.end(java.util.stream.Stream.iterate("x", java.util.function.UnaryOperator.identity())
                    .limit(400_000_000L).toList().size());
            """);

    @Test
    void applicationTypesPassThroughARunner() {
        var r = client.runChain("isolated", "echo", new Order("A-1", 21), DOUBLE, ChainState.of("tag", "!"));
        assertEquals(new Order("A-1!", 42), r.value());
        assertTrue(r.console().stream().anyMatch(l -> l.text().equals("in a runner")), r.console().toString());
    }

    @Test
    void attacksFailTypedWhileOtherChainsGoOnAndTheServerIsUntouched() throws Exception {
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        long killedBefore = isolated.functionRunners().stats().killed();
        AtomicBoolean attacking = new AtomicBoolean(true);
        AtomicInteger served = new AtomicInteger();
        List<Throwable> bystanderFailures = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Void> others = CompletableFuture.runAsync(() -> {
                for (int i = 0; attacking.get() && i < 10_000; i++) {
                    try {
                        assertEquals("b0,b1,b2", bystander.runChain("isolated", "echo", "b", FINE, ChainState.empty()).value());
                        served.incrementAndGet();
                    } catch (Throwable t) {
                        synchronized (bystanderFailures) {
                            bystanderFailures.add(t);
                        }
                    }
                }
            }, pool);
            for (ChainingFunctionSource attack : List.of(QUADRATIC_INDEX_OF, ENDLESS_STREAM, JOIN_BLOW_UP,
                    TO_STRING_BLOW_UP, JOINING_BLOW_UP, TO_LIST_BLOW_UP)) {
                long start = System.nanoTime();
                ChainException e = assertThrows(ChainException.class,
                        () -> client.runChain("isolated", "echo", "x", attack, ChainState.empty()));
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, e.toString());
                assertTrue(v.rule().matches("wall-time|cpu-time|memory"), v.rule() + ": " + v.getMessage());
                assertEquals("isolated", v.host(), v.getMessage());
                // generous: the wall time, the kill's grace, a cold runner's compilation on a busy machine
                assertTrue(tookMillis < 45_000, "took " + tookMillis + " ms: " + v.getMessage());
            }
            attacking.set(false);
            others.get(120, TimeUnit.SECONDS);
        } finally {
            attacking.set(false);
            pool.shutdownNow();
        }
        assertTrue(bystanderFailures.isEmpty(), "other chains failed during the attacks: " + bystanderFailures);
        assertTrue(served.get() > 0, "no other chain completed during the attacks");
        FunctionRunnerPool runners = isolated.functionRunners();
        assertTrue(runners.stats().killed() >= killedBefore + 6, "every attacked runner is killed: " + runners.stats());
        // and is gone: this JVM's child processes are the pools' runners, at most runners + spares each
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ProcessHandle.current().descendants().count() > 6 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(ProcessHandle.current().descendants().count() <= 6, "runner processes left: "
                + ProcessHandle.current().descendants().map(h -> h.pid() + " " + h.info().command().orElse("?")).toList());
        // the server ran none of it: no abandoned sandbox thread, no thread left over, the heap as it was
        assertEquals(0, isolated.stats().abandonedSandboxThreads());
        int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        assertTrue(threadsAfter <= threadsBefore + 8, "threads: " + threadsBefore + " before, " + threadsAfter + " after");
        System.gc();
        long usedMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
        assertTrue(usedMb < 512, "heap used after the attacks: " + usedMb + " MiB");
        // and the runners are replaced: the next chain runs
        assertEquals("z0,z1,z2", client.runChain("isolated", "echo", "z", FINE, ChainState.empty()).value());
    }

    @Test
    void thePoolKeepsWarmSpares() throws Exception {
        FunctionRunnerPool runners = isolated.functionRunners();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (runners.idlePids().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(runners.idlePids().size() >= 2, "idle runners: " + runners.stats());
        for (long pid : runners.idlePids()) {
            assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "runner " + pid);
        }
    }

    @Test
    void aFullQueueIsRefusedRetryably() throws Exception {
        assertEquals("n0,n1,n2", client.runChain("narrow", "echo", "n", FINE, ChainState.empty()).value());
        CompletableFuture<Object> busy = CompletableFuture.supplyAsync(() -> {
            try {
                return client.runChain("narrow", "echo", "x", ENDLESS_STREAM, ChainState.empty()).value();
            } catch (ChainException e) {
                return e;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((narrow.functionRunners() == null || narrow.functionRunners().stats().running() == 0)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        ChainingFunctionException refused = assertThrows(ChainingFunctionException.class,
                () -> bystander.runChain("narrow", "echo", "n", FINE, ChainState.empty()));
        assertTrue(refused.isRetryable(), refused.getMessage());
        assertTrue(refused.getMessage().contains("function runners busy"), refused.getMessage());
        assertInstanceOf(SandboxViolationException.class, busy.get(90, TimeUnit.SECONDS));
        assertTrue(narrow.functionRunners().stats().refused() >= 1);
        assertEquals("n0,n1,n2", client.runChain("narrow", "echo", "n", FINE, ChainState.empty()).value());
    }

    /**
     * Another party (a client on 127.0.0.2: plaintext, so the server tells parties apart by the address
     * a chain came from) starts five functions that run to their wall time (60 s here) on a server of 3
     * runners and a queue of 8: two of them run, two wait (its quarter of the queue), the fifth is
     * refused at once, retryably. Meanwhile this client's chain gets the runner left and completes while
     * the other party's functions are all still running.
     */
    @Test
    void anotherPartysEndlessFunctionsLeaveThisClientARunner() throws Exception {
        Duration longWall = Duration.ofSeconds(60);
        Set<Long> before = childPids();
        List<Long> endless = new ArrayList<>();
        try (Cluster shared = new Cluster()) {
            RpccServer server = shared.server("shared", b -> b
                    .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, longWall))
                    .functionIsolation(FunctionIsolation.PROCESS)
                    .functionRunners(3, 2, 8, 96)
                    .service("echo", p -> p));
            RpccClient alice = shared.client(b -> b.timeout(Duration.ofSeconds(90)));
            RpccClient mallory = shared.client(b -> b.listen("127.0.0.2", 0).timeout(Duration.ofSeconds(120)));
            assertEquals("w0,w1,w2", alice.runChain("shared", "echo", "w", FINE, ChainState.empty()).value());

            List<CompletableFuture<ChainResult>> hostile = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                hostile.add(mallory.startChain("shared", "echo", "m", ENDLESS_STREAM, ChainState.empty()));
            }
            // one of the five is over its share of the runners and of the queue: refused at once
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (hostile.stream().noneMatch(CompletableFuture::isDone) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            List<CompletableFuture<ChainResult>> ended = hostile.stream().filter(CompletableFuture::isDone).toList();
            assertEquals(1, ended.size(), "one of the other party's five was refused");
            ExecutionException refused = assertThrows(ExecutionException.class, () -> ended.getFirst().get());
            ChainingFunctionException full = assertInstanceOf(ChainingFunctionException.class, refused.getCause(),
                    refused.getCause().toString());
            assertTrue(full.isRetryable(), full.getMessage());
            assertTrue(full.getMessage().contains("address:127.0.0.2"), "names the party: " + full.getMessage());
            while (server.functionRunners().stats().running() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(2, server.functionRunners().stats().running(), "the other party holds two runners");

            long start = System.nanoTime();
            assertEquals("a0,a1,a2", alice.runChain("shared", "echo", "a", FINE, ChainState.empty()).value());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(hostile.stream().filter(f -> f != ended.getFirst()).noneMatch(CompletableFuture::isDone),
                    "this client's chain completed while the other party's four functions still ran or waited");
            assertTrue(tookMillis < longWall.toMillis(), "took " + tookMillis + " ms");
            assertEquals(2, server.functionRunners().stats().running(), server.functionRunners().stats().toString());
            // (an invocation counts as running from when it has its share, before the runner it takes, maybe a new
            // one still starting, is busy: wait for both runners)
            long both = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.functionRunners().busyPids().size() < 2 && System.nanoTime() < both) {
                Thread.sleep(20);
            }
            endless.addAll(server.functionRunners().busyPids());
            assertEquals(2, endless.size(), "the two runners of the endless functions");
        }
        // the closed node ended its runners, also the two still running endless functions
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<Long> left;
        while (!(left = endless.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .toList()).isEmpty()) {
            if (System.nanoTime() > until) {
                endRunnersStartedSince(before);
                throw new AssertionError("function runners still alive 20 s after their node closed: " + left);
            }
            Thread.sleep(50);
        }
    }

    /** The process ids of this JVM's child processes now (the pools' function runners). */
    static Set<Long> childPids() {
        return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    /**
     * Ends the function runners started since {@code before} (after a failed check that their closed node
     * ended them), so that they do not spin on and take a core from the tests that run after it.
     */
    static void endRunnersStartedSince(Set<Long> before) throws Exception {
        List<ProcessHandle> left = ProcessHandle.current().children().filter(h -> !before.contains(h.pid())).toList();
        for (ProcessHandle h : left) {
            h.descendants().forEach(ProcessHandle::destroyForcibly);
            h.destroyForcibly();
        }
        for (ProcessHandle h : left) {
            h.onExit().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * rpcc's own static-route function runs in the server's JVM at any isolation level: a static route
     * through two servers that run every Java function in a runner (one runner each, no spare, so none
     * starts until an invocation needs it) starts no runner at either.
     */
    @Test
    void aStaticRouteThroughProcessIsolatedServersUsesNoRunner() throws Exception {
        RpccServer first = cluster.server("route-1", b -> b.functionIsolation(FunctionIsolation.PROCESS)
                .functionRunners(1, 0, 4, 64).service("echo", p -> p + ">1"));
        RpccServer second = cluster.server("route-2", b -> b.functionIsolation(FunctionIsolation.PROCESS)
                .functionRunners(1, 0, 4, 64).service("echo", p -> p + ">2"));
        ChainResult r = client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("route-1", "echo"),
                StaticRoute.hop("route-2", "echo"), StaticRoute.hop("route-1", "echo")), "s"));
        assertEquals("s>1>2>1", r.value());
        for (RpccServer s : List.of(first, second)) {
            FunctionRunnerPool.Stats stats = s.functionRunners().stats();
            assertEquals(0, stats.started(), "no runner was started: " + stats);
            assertEquals(0, stats.running(), stats.toString());
        }
        // a function of the client's own at the same server does run in a runner (on echo's result)
        assertEquals("f>20,f>21,f>22", client.runChain("route-2", "echo", "f", FINE, ChainState.empty()).value());
        assertTrue(second.functionRunners().stats().started() >= 1, second.functionRunners().stats().toString());
    }

    @Test
    void byTrustRunsUnauthenticatedChainsInRunnersAndMutualTlsOnesInProcess() throws Exception {
        try (Cluster tls = new Cluster(Cluster.Security.MUTUAL_TLS); Cluster plain = new Cluster()) {
            RpccServer trusted = tls.server("trusting", b -> b.functionIsolation(FunctionIsolation.BY_TRUST)
                    .service("echo", p -> p));
            RpccServer wary = plain.server("wary", b -> b.functionIsolation(FunctionIsolation.BY_TRUST)
                    .functionRunners(1, 0, 4, 64).service("echo", p -> p));
            assertEquals("t0,t1,t2", tls.client().runChain("trusting", "echo", "t", FINE, ChainState.empty()).value());
            assertNull(trusted.functionRunners(), "a chain from an mTLS-authenticated peer runs in-process");
            assertEquals("w0,w1,w2", plain.client(b -> b.timeout(Duration.ofSeconds(90)))
                    .runChain("wary", "echo", "w", FINE, ChainState.empty()).value());
            assertNotNull(wary.functionRunners(), "a chain from an unauthenticated peer runs in a runner");
            assertTrue(wary.functionRunners().stats().started() >= 1);
        }
    }

    /**
     * In plaintext under the default policy every chain's Java functions run in runners, so a
     * {@code BY_TRUST} node starts its spares with the node, as a {@code PROCESS} node does: the first
     * chain finds one warm rather than wait for a JVM to start. (With mutual TLS, or a policy of the
     * server's own, the pool waits for the first function that needs it: the tests above and below.)
     */
    @Test
    void byTrustInPlaintextStartsItsRunnersWithTheNode() throws Exception {
        try (Cluster plain = new Cluster()) {
            RpccServer eager = plain.server("eager", b -> b.functionIsolation(FunctionIsolation.BY_TRUST)
                    .functionRunners(1, 1, 4, 64).service("echo", p -> p));
            assertNotNull(eager.functionRunners(), "the pool started with the node, before any chain");
            assertTrue(eager.awaitWarmUp(Duration.ofSeconds(60)), "compilers and the spare warm");
            FunctionRunnerPool.Stats before = eager.functionRunners().stats();
            assertEquals(1, before.idle(), "its spare started and warmed with no chain asking: " + before);
            assertEquals(1, before.started(), before.toString());
            assertEquals("e0,e1,e2", plain.client(b -> b.timeout(Duration.ofSeconds(90)))
                    .runChain("eager", "echo", "e", FINE, ChainState.empty()).value());
        }
    }

    @Test
    void byTrustRunsWhereTheChainPolicyChose() throws Exception {
        try (Cluster tls = new Cluster(Cluster.Security.MUTUAL_TLS); Cluster plain = new Cluster()) {
            // a verified originator the policy still isolates, and an unverified one it trusts
            RpccServer isolating = tls.server("isolating", b -> b.functionIsolation(FunctionIsolation.BY_TRUST)
                    .functionRunners(1, 0, 4, 64)
                    .policy((service, caller) -> ChainPolicy.Decision.allow(IsolationLevel.ISOLATED))
                    .service("echo", p -> p));
            RpccServer trusting = plain.server("trusting", b -> b.functionIsolation(FunctionIsolation.BY_TRUST)
                    .policy((service, caller) -> ChainPolicy.Decision.allow(IsolationLevel.IN_PROCESS))
                    .service("echo", p -> p));
            assertEquals("i0,i1,i2", tls.client(b -> b.timeout(Duration.ofSeconds(90)))
                    .runChain("isolating", "echo", "i", FINE, ChainState.empty()).value());
            assertNotNull(isolating.functionRunners(), "the policy chose ISOLATED: the function ran in a runner");
            assertTrue(isolating.functionRunners().stats().started() >= 1);
            assertEquals("p0,p1,p2", plain.client().runChain("trusting", "echo", "p", FINE, ChainState.empty()).value());
            assertNull(trusting.functionRunners(), "the policy chose IN_PROCESS: no runner was needed");
        }
    }
}
