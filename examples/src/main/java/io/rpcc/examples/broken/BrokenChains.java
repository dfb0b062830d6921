package io.rpcc.examples.broken;

import io.rpcc.client.ChainCall;
import io.rpcc.client.Heartbeats;
import io.rpcc.client.RetryPolicy;
import io.rpcc.client.RpccClient;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.examples.Charts;
import io.rpcc.examples.Measurement;
import io.rpcc.examples.Options;
import io.rpcc.examples.Results;
import io.rpcc.examples.Timing;
import io.rpcc.server.RpccServer;
import io.rpcc.testkit.WanCluster;
import io.rpcc.testkit.WanTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A node killed mid-chain (paper section 3.9), on the paper's topology: a client in Redmond starts a
 * chain through {@code a} in Mountain View to {@code b} in Cambridge; {@code crash-after} ms after
 * {@code b}'s service function starts, {@code b} dies the way a process does (nothing more leaves it,
 * its sockets close). For each heartbeat interval (the chain is declared broken after twice that
 * without a sign of life) it measures, from the kill:
 * <ul>
 *   <li>{@code detect}: until the client declares the chain broken (no retry; the call then ends,
 *       after the diagnosis, with a {@link BrokenChainException} naming hop 2 at {@code b});</li>
 *   <li>{@code retry}: until the chain's result arrives when {@code b} is restarted at once and the
 *       client retries (a {@link RetryPolicy} of 2 attempts); {@code a}'s hop is replayed from its
 *       outcome cache, not run again;</li>
 *   <li>{@code failover}: the same through {@code c}, whose name has a backup endpoint (another node
 *       named {@code c} in Cambridge) that is never restarted: the retried chain reaches {@code a},
 *       which cannot hand it to the dead primary and fails over to the backup.</li>
 * </ul>
 * The expected detection time lies between {@code broken-after - interval} and {@code broken-after}
 * (when the last sign of life came before the kill), plus the 200 ms of the sweeps that send and
 * check heartbeats and the latency of the last link. Prints a table, or with {@code --json} one
 * {@link Measurement} per line ({@code param} is the interval in ms); writes the chart
 * {@code broken-chain.png}.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar broken-chain [--json] [--intervals 500,1000,2000,3000] [--runs 3] [--charts DIR]
 * </pre>
 */
public final class BrokenChains {
    static final String SCENARIO = "broken-chain";
    /** How often the nodes' sweeps send due heartbeats and the client checks for silent chains. */
    static final long SWEEP_MS = 200;

    static final ChainingFunctionSource TO_B = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            /** At server a: on to b's work. */
            public class ToB implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("b", "work", result);
                }
            }
            """);

    static final ChainingFunctionSource TO_C = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            /** At server a: on to c's work (c has a backup). */
            public class ToC implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("c", "work", result);
                }
            }
            """);

    private BrokenChains() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, "--intervals", "--runs", "--crash-after");
        WanTopology t = WanTopology.paperFigure7();
        List<Integer> intervals = o.integers("--intervals", List.of(500, 1000, 2000, 3000));
        Results results = run(t, intervals, o.integer("--runs", 3), o.integer("--crash-after", 300));
        Path chart = Charts.line(o.charts(), "broken-chain", "A node killed mid-chain: detection and recovery",
                "heartbeat interval (ms; broken after twice that)", "time from the kill (ms)",
                results.lines().stream().filter(m -> !m.variant().startsWith("broken")).toList(),
                Measurement::label, Measurement::param, Measurement::medianMs);
        results.print(o, chart, () -> {
            System.out.println("A node killed mid-chain (paper 3.9): client in Redmond, a in Mountain View, b (killed) in"
                    + " Cambridge; times from the kill, medians");
            System.out.printf(Locale.ROOT, "  %11s %12s %9s %20s %9s %9s %17s %8s %11s%n", "interval ms",
                    "broken after", "detect ms", "expected", "retry ms", "ideal", "of it, after det.", "broken",
                    "failover ms");
            for (int interval : intervals) {
                Measurement d = results.measured("detect", interval, null);
                Measurement r = results.measured("retry", interval, null);
                System.out.printf(Locale.ROOT, "  %11d %12d %9.0f %9.0f .. %6.0f %9.0f %9.0f %17.0f %8.1f %11.0f%n", interval,
                        2 * interval, d.medianMs(), expectedDetectMinMs(t, interval), expectedDetectMaxMs(t, interval),
                        r.medianMs(), results.ideal("retry", interval, null).medianMs(),
                        results.measured("retry after detection", interval, null).medianMs(),
                        results.measured("broken declarations per retried chain", interval, null).medianMs(),
                        results.measured("failover", interval, null).medianMs());
            }
            System.out.println("(expected: broken-after - interval .. broken-after, plus a sweep and the last link's latency;"
                    + " retry ideal: the largest expected detection + the 100 ms backoff + the chain's own time, without"
                    + " the two new connections the retried chain opens (to the restarted b, and from it back to the"
                    + " client: a round trip each); broken: declarations per retried chain, 2 when the retried attempt"
                    + " was itself declared broken and the diagnosis finished it)");
        });
    }

    /** Measures both variants {@code runs} times at each interval. */
    public static Results run(WanTopology t, List<Integer> intervalsMs, int runs, int crashAfterMs) throws Exception {
        Results results = new Results();
        try (WanCluster wan = WanCluster.of(t)) {
            wan.server("a", WanTopology.MOUNTAIN_VIEW, b -> b.service("step", p -> p));
            Victim victim = new Victim(wan, "b");
            Victim primary = new Victim(wan, "c");
            primary.restart(true);
            wan.backup("c", WanTopology.CAMBRIDGE, b -> b.service("work", p -> p + "!"));
            for (int interval : intervalsMs) {
                Heartbeats hb = Heartbeats.every(Duration.ofMillis(interval), Duration.ofMillis(2L * interval));
                List<Double> detect = new ArrayList<>();
                List<Double> retry = new ArrayList<>();
                List<Double> afterDetection = new ArrayList<>();
                List<Double> declarations = new ArrayList<>();
                List<Double> failover = new ArrayList<>();
                for (int r = 0; r < runs; r++) {
                    try (RpccClient client = wan.client("client-" + interval + "-" + r, WanTopology.REDMOND,
                            c -> c.heartbeats(hb))) {
                        detect.add(detectOnce(client, victim, crashAfterMs));
                        retry.add(retryOnce(client, victim, crashAfterMs, afterDetection, declarations));
                        failover.add(failoverOnce(client, primary, crashAfterMs));
                    }
                }
                results.add(Measurement.measured(SCENARIO, "detect", interval, Timing.median(detect), 2));
                results.add(Measurement.measured(SCENARIO, "retry", interval, Timing.median(retry), 2));
                results.add(Measurement.measured(SCENARIO, "failover", interval, Timing.median(failover), 2));
                results.add(Measurement.measured(SCENARIO, "retry after detection", interval,
                        Timing.median(afterDetection), 2));
                results.add(Measurement.measured(SCENARIO, "broken declarations per retried chain", interval,
                        declarations.stream().mapToDouble(Double::doubleValue).average().orElse(0), 2));
                results.add(Measurement.ideal(SCENARIO, "detect", interval, expectedDetectMaxMs(t, interval), 2));
                results.add(Measurement.ideal(SCENARIO, "retry", interval, expectedDetectMaxMs(t, interval) + 100
                        + chainMs(t), 2));
            }
            victim.close();
            primary.close();
        }
        return results;
    }

    /** Kills b mid-hop; the time from the kill until the client counts the chain broken. */
    private static double detectOnce(RpccClient client, Victim victim, int crashAfterMs) throws Exception {
        victim.restart(true);
        long brokenBefore = client.brokenChains();
        CompletableFuture<ChainResult> call = client.startChain(ChainCall.to("a", "step").params("x")
                .chainingFunction(TO_B));
        victim.awaitStarted();
        TimeUnit.MILLISECONDS.sleep(crashAfterMs);
        long killed = victim.kill();
        while (client.brokenChains() == brokenBefore) {
            TimeUnit.MILLISECONDS.sleep(2);
        }
        double ms = (System.nanoTime() - killed) / 1e6;
        try {
            call.join();
            throw new IllegalStateException("the chain through the killed node completed");
        } catch (CompletionException e) {
            if (!(e.getCause() instanceof BrokenChainException broken) || broken.hop() != 2) {
                throw new IllegalStateException("expected a BrokenChainException naming hop 2, got " + e.getCause(),
                        e.getCause());
            }
        }
        return ms;
    }

    /** Kills b mid-hop and restarts it at once; the time from the kill until the retried chain's result. */
    private static double retryOnce(RpccClient client, Victim victim, int crashAfterMs, List<Double> afterDetection,
                                    List<Double> declarations) throws Exception {
        victim.restart(true);
        CompletableFuture<ChainResult> call = client.startChain(ChainCall.to("a", "step").params("x")
                .chainingFunction(TO_B).retry(RetryPolicy.attempts(2)
                        .backoff(Duration.ofMillis(100), Duration.ofMillis(100), 1).jitter(0)));
        victim.awaitStarted();
        TimeUnit.MILLISECONDS.sleep(crashAfterMs);
        long brokenBefore = client.brokenChains();
        long killed = victim.kill();
        victim.restart(false);
        while (client.brokenChains() == brokenBefore && !call.isDone()) {
            TimeUnit.MILLISECONDS.sleep(2);
        }
        long detected = System.nanoTime();
        Object value = call.join().value();
        long done = System.nanoTime();
        if (!"x!".equals(value)) {
            throw new IllegalStateException("the retried chain returned " + value + ", expected x!");
        }
        afterDetection.add((done - detected) / 1e6);
        declarations.add((double) (client.brokenChains() - brokenBefore));
        return (done - killed) / 1e6;
    }

    /**
     * Kills c's primary mid-hop, its backup (in the same site) running; the time from the kill until
     * the retried chain's result, which {@code a} hands to the backup once the primary cannot take it.
     */
    private static double failoverOnce(RpccClient client, Victim primary, int crashAfterMs) throws Exception {
        primary.restart(true);
        CompletableFuture<ChainResult> call = client.startChain(ChainCall.to("a", "step").params("x")
                .chainingFunction(TO_C).retry(RetryPolicy.attempts(2)
                        .backoff(Duration.ofMillis(100), Duration.ofMillis(100), 1).jitter(0)));
        primary.awaitStarted();
        TimeUnit.MILLISECONDS.sleep(crashAfterMs);
        long killed = primary.kill();
        Object value = call.join().value();
        long done = System.nanoTime();
        if (!"x!".equals(value)) {
            throw new IllegalStateException("the chain that failed over returned " + value + ", expected x!");
        }
        return (done - killed) / 1e6;
    }

    /** Client to a, a to b, b back to the client: the chain's own time on the topology. */
    static double chainMs(WanTopology t) {
        return (t.link(WanTopology.REDMOND, WanTopology.MOUNTAIN_VIEW).latency().toNanos()
                + t.link(WanTopology.MOUNTAIN_VIEW, WanTopology.CAMBRIDGE).latency().toNanos()
                + t.link(WanTopology.CAMBRIDGE, WanTopology.REDMOND).latency().toNanos()) / 1e6;
    }

    /** The soonest the client can tell: broken-after less one interval (a heartbeat just before the kill). */
    static double expectedDetectMinMs(WanTopology t, int intervalMs) {
        return 2.0 * intervalMs - intervalMs;
    }

    /** The latest: broken-after, plus a sweep, plus the latency of the last heartbeat's link. */
    static double expectedDetectMaxMs(WanTopology t, int intervalMs) {
        return 2.0 * intervalMs + SWEEP_MS + t.link(WanTopology.CAMBRIDGE, WanTopology.REDMOND).latency().toNanos() / 1e6;
    }

    /**
     * Node b: its service function {@code work} blocks (until interrupted) in an instance started to
     * be killed, and appends "!" at once in one started to recover. Killing it drops everything it
     * would still send, then closes it: its peers see its connections close and nothing more, as
     * when the process dies.
     */
    private static final class Victim implements AutoCloseable {
        private final WanCluster wan;
        private final String name;
        private RpccServer server;
        private Silence silence;
        private volatile CountDownLatch started = new CountDownLatch(1);

        Victim(WanCluster wan, String name) {
            this.wan = wan;
            this.name = name;
        }

        void restart(boolean blocking) {
            close();
            started = new CountDownLatch(1);
            CountDownLatch signal = started;
            silence = new Silence();
            server = wan.server(name, WanTopology.CAMBRIDGE, b -> b.pipelineCustomizer(silence.customizer())
                    .service("work", p -> {
                        signal.countDown();
                        if (blocking) {
                            new CountDownLatch(1).await();
                        }
                        return p + "!";
                    }));
        }

        void awaitStarted() throws InterruptedException {
            if (!started.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + "'s service function did not start within 30 s");
            }
        }

        /** Kills b; returns when (System.nanoTime()) it died. */
        long kill() {
            silence.on();
            long at = System.nanoTime();
            server.close();
            server = null;
            return at;
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
                server = null;
            }
        }
    }
}
