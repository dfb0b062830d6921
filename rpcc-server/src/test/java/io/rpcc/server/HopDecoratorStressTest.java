package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopTiming;
import io.rpcc.core.SubChain;
import io.rpcc.core.testing.StressDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hundreds of random chains through decorated servers, some cancelled at a random moment: forwards,
 * failing service and chaining functions, sub-chains (returned and composed), splits, a server whose
 * chaining functions run at a proxy, hops whose work sends partial replies after they return. Every
 * hop that was decorated is told its outcome exactly once, after afterRun on its own thread and after
 * the work it started has finished sending; a chain that succeeded has no failed or cancelled hop and
 * one hop that finished it; a chain that failed has a failed hop with the exception its client got.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class HopDecoratorStressTest {
    static final int CHAINS = StressDepth.size(400, 4_000);
    static final int AT_ONCE = 16;
    static final String[] SERVERS = {"s1", "s2", "s3", "s4"};

    /**
     * Follows the state's route: step i calls "fn"+i at "srv"+i; "split" splits into work at "srv"+i
     * and "alt"+i, merged here; "cfboom" throws; no step i ends the chain.
     */
    static final ChainingFunctionSource PLAN = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;
            public class Plan implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    int i = state.get("i", Integer.class);
                    if (!state.contains("fn" + i)) return NextHop.end(result);
                    String fn = state.get("fn" + i, String.class);
                    String srv = state.get("srv" + i, String.class);
                    if (fn.equals("cfboom")) throw new IllegalStateException("chaining function fails at step " + i);
                    if (fn.equals("split")) {
                        return NextHop.split(List.of(NextHop.callThenEnd(srv, "work", result + "a"),
                                NextHop.callThenEnd(state.get("alt" + i, String.class), "work", result + "b")));
                    }
                    return NextHop.call(srv, fn, result, state.with("i", i + 1));
                }
            }
            """);

    /** One hop a decorator saw. */
    static final class Hop {
        final HopDecorator.Start start;
        final String server;
        final long thread = Thread.currentThread().threadId();
        final AtomicInteger ended = new AtomicInteger();
        final AtomicInteger afterRun = new AtomicInteger();
        final AtomicInteger tasksStarted = new AtomicInteger();
        final AtomicInteger tasksDone = new AtomicInteger();
        volatile HopOutcome outcome;
        volatile String problem;

        Hop(HopDecorator.Start start, String server) {
            this.start = start;
            this.server = server;
        }

        String tag() {
            return start.context().metadata().get("tag");
        }

        @Override
        public String toString() {
            return server + " " + start.kind() + " hop " + start.context().hop() + " of " + tag() + ": " + outcome;
        }
    }

    static final ThreadLocal<Hop> CURRENT = new ThreadLocal<>();
    final ConcurrentLinkedQueue<Hop> hops = new ConcurrentLinkedQueue<>();

    HopDecorator recorder(String server) {
        return start -> {
            Hop hop = new Hop(start, server);
            hops.add(hop);
            CURRENT.set(hop);
            return new HopDecorator.Listener() {
                @Override
                public void afterRun() {
                    hop.afterRun.incrementAndGet();
                    if (Thread.currentThread().threadId() != hop.thread) {
                        hop.problem = "afterRun on another thread";
                    }
                    CURRENT.remove();
                }

                @Override
                public void ended(HopOutcome outcome, HopTiming timing) {
                    if (hop.afterRun.get() != 1) {
                        hop.problem = "ended before afterRun";
                    }
                    if (hop.tasksDone.get() != hop.tasksStarted.get()) {
                        hop.problem = "ended while " + (hop.tasksStarted.get() - hop.tasksDone.get())
                                + " of its tasks still ran";
                    }
                    hop.outcome = outcome;
                    hop.ended.incrementAndGet();
                }
            };
        };
    }

    /** Sleeps a little, sometimes starts work that replies after the hop returned. */
    static Object work(Object p) {
        ChainContext ctx = ChainContext.current();
        Random r = new Random(p.hashCode() * 31L + ctx.hop());
        Hop hop = CURRENT.get();
        if (r.nextInt(3) == 0 && hop != null) {
            hop.tasksStarted.incrementAndGet();
            ctx.startVirtualThread(() -> {
                try {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(r.nextInt(3000)));
                    ChainContext.current().preturn("from a task of hop " + ctx.hop());
                } finally {
                    hop.tasksDone.incrementAndGet();
                }
            });
        }
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(r.nextInt(2000)));
        return p + ".";
    }

    @Test
    void everyHopIsToldItsOutcomeExactlyOnce() throws Exception {
        try (Cluster cluster = new Cluster()) {
            cluster.server("px", b -> b.actAsChainingProxy().decorator(recorder("px")));
            for (String s : SERVERS) {
                cluster.server(s, b -> {
                    b.decorator(recorder(s)).service("work", HopDecoratorStressTest::work)
                            .service("boom", p -> {
                                throw new IllegalArgumentException("boom at " + ChainContext.current().node());
                            })
                            .service("sub", p -> {
                                int n = p.hashCode();
                                return SubChain.to(SERVERS[Math.floorMod(n, 4)], "work").params(p)
                                        .composition(n % 2 == 0);
                            });
                    if (s.equals("s4")) {
                        b.chainingProxy("px");
                    }
                    return b;
                });
            }
            RpccClient client = cluster.client(b -> b.timeout(Duration.ofSeconds(30)));
            Random random = new Random(42);
            Semaphore slots = new Semaphore(AT_ONCE);
            Map<String, CompletableFuture<Object>> ends = new ConcurrentHashMap<>();
            List<CompletableFuture<?>> all = new ArrayList<>();
            int cancelled = 0;
            for (int c = 0; c < CHAINS; c++) {
                String tag = "c" + c;
                ChainState route = ChainState.of("i", 0);
                int steps = random.nextInt(4);
                for (int i = 0; i < steps; i++) {
                    int k = random.nextInt(10);
                    route = route.with("srv" + i, SERVERS[random.nextInt(4)]).with("fn" + i, switch (k) {
                        case 0 -> "boom";
                        case 1 -> "cfboom";
                        case 2, 3 -> "sub";
                        default -> "work";
                    });
                }
                if (random.nextInt(4) == 0) {
                    route = route.with("srv" + steps, SERVERS[random.nextInt(4)]).with("fn" + steps, "split")
                            .with("alt" + steps, SERVERS[random.nextInt(4)]);
                }
                slots.acquire();
                CompletableFuture<ChainResult> f = client.startChain(ChainCall.to(SERVERS[random.nextInt(4)], "work")
                        .params(tag).metadata("tag", tag).chainingFunction(PLAN)
                        .state(route));
                CompletableFuture<Object> end = f.handle((v, e) -> e == null ? v : unwrap(e));
                end.whenComplete((v, e) -> slots.release());
                ends.put(tag, end);
                all.add(end);
                if (random.nextInt(5) == 0) {
                    cancelled++;
                    long delay = random.nextInt(4000);
                    Thread.ofVirtual().start(() -> {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(delay));
                        f.cancel(true);
                    });
                }
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && hops.stream().anyMatch(h -> h.ended.get() == 0)) {
                Thread.sleep(20);
            }
            Thread.sleep(200); // a second ended() would come now
            List<Hop> notOnce = hops.stream().filter(h -> h.ended.get() != 1).toList();
            assertTrue(notOnce.isEmpty(), notOnce.size() + " hops not told exactly once, e.g. " + notOnce.stream()
                    .limit(5).map(h -> h + " x" + h.ended.get()).toList());
            List<Hop> problems = hops.stream().filter(h -> h.problem != null).toList();
            assertTrue(problems.isEmpty(), problems.size() + " hops told wrongly, e.g. " + problems.stream().limit(5)
                    .map(h -> h + ": " + h.problem).toList());

            Map<String, List<Hop>> byChain = new ConcurrentHashMap<>();
            for (Hop h : hops) {
                byChain.computeIfAbsent(h.tag(), t -> new ArrayList<>()).add(h);
            }
            int succeeded = 0;
            int failed = 0;
            for (var e : ends.entrySet()) {
                Object end = e.getValue().join();
                List<Hop> of = byChain.getOrDefault(e.getKey(), List.of());
                if (end instanceof ChainResult) {
                    succeeded++;
                    assertTrue(of.stream().allMatch(h -> h.outcome.succeeded()), "chain " + e.getKey() + ": " + of);
                    assertEquals(1, of.stream().filter(h -> h.outcome instanceof HopOutcome.Finished).count(),
                            "chain " + e.getKey() + ": " + of);
                } else if (end instanceof ChainException x && !(end instanceof CancellationException)
                        && x.code() != io.rpcc.core.ChainErrorCode.CANCELLED) {
                    failed++;
                    assertTrue(of.stream().anyMatch(h -> h.outcome.failure() != null
                                    && h.outcome.failure().code() == x.code()
                                    && h.outcome.failure().remoteMessage().equals(x.remoteMessage())),
                            "chain " + e.getKey() + " failed with " + x + ": " + of);
                }
            }
            assertTrue(succeeded > CHAINS / 4, "succeeded: " + succeeded + ", e.g. " + ends.values().stream().limit(3)
                    .map(CompletableFuture::join).toList());
            assertTrue(failed > 20, "failed: " + failed);
            assertTrue(cancelled > 20, "cancelled: " + cancelled);
            for (HopDecorator.Kind kind : HopDecorator.Kind.values()) {
                assertTrue(hops.stream().anyMatch(h -> h.start.kind() == kind), "a hop of kind " + kind);
            }
            assertTrue(hops.stream().anyMatch(h -> h.outcome instanceof HopOutcome.Cancelled), "a cancelled hop");
        }
    }

    private static Object unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof CancellationException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
