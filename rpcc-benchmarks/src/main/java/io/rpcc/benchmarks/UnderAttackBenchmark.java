package io.rpcc.benchmarks;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.Refusal;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.PingFrame;
import io.rpcc.core.testing.RawPeer;
import io.rpcc.server.RpccServer;
import io.rpcc.server.ServerStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What a hostile peer or a hostile chaining function costs everyone else: a bystander client's
 * latency at one node, with no attack and then under each attack in turn, side by side in one run. A
 * runner with a {@code main}, not a JMH benchmark. Every round measures the bystander without an
 * attack first and then under each attack, so the ratios compare figures taken minutes apart at most;
 * the report gives, per attack, the median over the rounds of the bystander's p50 and p99 and of their
 * ratios to the same round's unattacked figures.
 *
 * <p>The node under attack ({@code target}) has rpcc's default bounds, a second node ({@code next})
 * stands behind it, and Java functions of peers the node cannot verify run in function-runner
 * processes ({@link FunctionIsolation#BY_TRUST}, plaintext: every peer). The bystander runs one
 * operation at a time, in turn: a plain call to {@code target}, a two-hop chain
 * {@code target → next}, and a call to {@code target} with a small cached Java chaining function.
 * The attackers run in this JVM, as raw sockets speaking rpcc's protocol or as a normal client; they
 * reconnect whenever the node cuts them off. {@code docs/benchmarks.md} says what each attack does.
 */
public final class UnderAttackBenchmark {
    static final String USAGE = """
            Usage: UnderAttackBenchmark [options]
              --attacks LIST       comma-separated, default all: %s
                                   (the bystander's unattacked baseline, "none", runs first in every round)
              --rounds N           rounds over all attacks, default 3 (the report: median of rounds)
              --seconds S          measured seconds per attack and round, default 3
              --warmup S           seconds an attack runs before the bystander is measured, default 1
              --initial-warmup S   seconds of the bystander's operations before the first round, default 5
              --csv FILE           also write one row per attack, operation and round
              --label TEXT         the build column of the CSV rows, default "run"
              --quiet              no progress lines on stderr
            """;

    /** Every attack, in the report's order; {@code none} is the baseline. */
    static final List<String> ATTACKS = List.of("none", "ping-flood", "junk-frames", "forged-cancels",
            "unvouched-requests", "dead-next-hops", "hostile-java", "compile-flood");

    /** The bystander's operations, in the report's order. */
    static final List<String> OPERATIONS = List.of("call", "chain", "java");

    /** Latencies recorded per operation and window (more are counted, not recorded). */
    private static final int LATENCY_CAPACITY = 1 << 18;

    /**
     * Where the raw attackers connect from, and where the attacking client listens (and so connects
     * from): loopback addresses other than the nodes' 127.0.0.1, so that the node sees other hosts,
     * which nothing vouches for.
     */
    static final String RAW_ATTACKER_HOST = "127.0.0.2";
    static final String MALLORY_HOST = "127.0.0.3";

    /** The node's wall-time limit for a chaining function: a hostile one holds a runner this long. */
    static final Duration WALL_TIME = Duration.ofSeconds(1);

    private UnderAttackBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.printf(USAGE, String.join(",", ATTACKS));
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.printf(USAGE, String.join(",", ATTACKS));
            return;
        }
        Report report = run(options, options.quiet ? null : System.err);
        System.out.print(report.markdown());
        System.out.flush();
        System.exit(report.errors().isEmpty() ? 0 : 1);
    }

    /** Runs every round of the attacks {@code options} select; progress on {@code progress} unless null. */
    static Report run(Options options, PrintStream progress) throws Exception {
        try (Setup setup = new Setup()) {
            Report report = new Report(options);
            // warm the bystander's paths (JIT, connections, the runner pool, the cached function)
            setup.bystander(options.initialWarmupSeconds, null);
            for (int round = 1; round <= options.rounds; round++) {
                for (String attack : options.attacks) {
                    try (Attack a = setup.attack(attack)) {
                        sleep(options.warmupSeconds);
                        Window w = setup.bystander(options.seconds, a);
                        report.add(attack, round, w, a.describe(setup.target.stats()));
                        if (progress != null) {
                            progress.printf(Locale.ROOT, "round %d %-19s %s | %s%n", round, attack, w.summary(), a.describe(setup.target.stats()));
                        }
                    }
                    setup.settle();
                }
            }
            if (options.csv != null) {
                report.writeCsv(options.csv);
            }
            return report;
        }
    }

    private static void sleep(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }

    /** A well-framed frame of a type no version of rpcc has: malformed. */
    static final byte[] JUNK = {0, 0, 0, 2, FrameType.PROTOCOL_VERSION, 99};

    /** A small chaining function, cached at the node after its first use. */
    static final ChainingFunctionSource BYSTANDER_FUNCTION = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Bystander implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.end(result + "!");
                }
            }
            """);

    /** Java functions that run until killed, or allocate past any heap, from inside one JDK call. */
    static final List<ChainingFunctionSource> HOSTILE_FUNCTIONS = List.of(
            hostile("Quadratic", """
                    String text = "a".repeat(4 << 20);
                    return NextHop.end(text.indexOf("a".repeat(256 << 10) + "b"));
                    """),
            hostile("Endless", """
                    return NextHop.end(java.util.stream.Stream.iterate(0L, java.util.function.UnaryOperator.identity())
                            .limit(Long.MAX_VALUE).count());
                    """),
            hostile("Join", """
                    String s = "x".repeat(4 << 20);
                    List<String> parts = new ArrayList<>();
                    for (int i = 0; i < 64; i++) parts.add(s);
                    return NextHop.end(String.join(",", parts).length());
                    """));

    private static ChainingFunctionSource hostile(String name, String body) {
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

    /** The nodes, the bystander and the attackers' resources. */
    static final class Setup implements AutoCloseable {
        final StaticNameResolver names = new StaticNameResolver();
        final List<AutoCloseable> closeables = new ArrayList<>();
        final RpccServer target;
        final RpccServer next;
        final RpccClient bystander;
        /** A normal client, for the attacks that need only chains: dead next hops and hostile functions. */
        final RpccClient mallory;
        /** Accepts connections (into its backlog) and never answers: a next hop that is dead but reachable. */
        final ServerSocket blackHole;
        final StaticRoute twoHops = StaticRoute.of(StaticRoute.hop("target", "echo"), StaticRoute.hop("next", "echo"));
        final StaticRoute toDeadHop = StaticRoute.of(StaticRoute.hop("target", "echo"), StaticRoute.hop("dead", "echo"));

        Setup() throws IOException {
            SandboxLimits limits = new SandboxLimits(SandboxLimits.DEFAULT.cpuTime(), SandboxLimits.DEFAULT.allocatedBytes(), WALL_TIME);
            target = closing(RpccServer.builder("target").resolver(names).service("echo", p -> p).sandbox(limits)
                    .functionIsolation(FunctionIsolation.BY_TRUST).build().start());
            names.register("target", target.address());
            next = closing(RpccServer.builder("next").resolver(names).service("echo", p -> p).build().start());
            names.register("next", next.address());
            blackHole = closing(new ServerSocket(0, 4096, InetAddress.getLoopbackAddress()));
            names.register("dead", new InetSocketAddress(InetAddress.getLoopbackAddress(), blackHole.getLocalPort()));
            bystander = closing(RpccClient.builder().name("bystander").resolver(names).timeout(Duration.ofSeconds(30))
                    .build().start());
            mallory = closing(RpccClient.builder().name("mallory").listen(MALLORY_HOST, 0).resolver(names)
                    .timeout(Duration.ofSeconds(60)).build().start());
        }

        private <T extends AutoCloseable> T closing(T c) {
            closeables.add(c);
            return c;
        }

        /** The bystander's operations, one at a time in turn, for {@code seconds}; checks each result. */
        Window bystander(double seconds, Attack during) {
            Window w = new Window();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long n = 0;
            while (System.nanoTime() < end) {
                String payload = "p" + n++;
                w.time("call", () -> bystander.call("target", "echo", payload), payload);
                w.time("chain", () -> bystander.startChain(twoHops, payload), payload);
                w.time("java", () -> bystander.startChain("target", "echo", payload, BYSTANDER_FUNCTION, ChainState.empty()),
                        payload + "!");
            }
            return w;
        }

        /** Waits for what an attack left behind to go: its connections closed, killed runners replaced. */
        void settle() throws InterruptedException {
            Thread.sleep(500);
            for (int i = 0; i < 100 && target.stats().connectionsOpen() > 4; i++) {
                Thread.sleep(50);
            }
        }

        /** Starts attack {@code name}; what the node refuses from now on is the attack's. */
        Attack attack(String name) {
            ServerStats before = target.stats();
            Attack a = start(name);
            a.remember(before);
            return a;
        }

        private Attack start(String name) {
            InetSocketAddress at = target.address();
            return switch (name) {
                case "none" -> new Attack.None();
                case "ping-flood" -> new Flood("PINGs", at, RawPeer.bytes(new PingFrame(false, 42)), 4096, 2);
                case "junk-frames" -> new Flood("junk frames", at, JUNK, 8192, 2);
                case "forged-cancels" -> new ForgedCancels(at);
                case "unvouched-requests" -> new UnvouchedRequests(at);
                case "dead-next-hops" -> new Chains("chains to a dead next hop", 32,
                        () -> mallory.startChain(ChainCall.along(toDeadHop, "x").timeout(Duration.ofSeconds(60))));
                case "hostile-java" -> {
                    AtomicLong i = new AtomicLong();
                    yield new Chains("hostile Java functions", 4, () -> mallory.startChain("target", "echo", "x",
                            HOSTILE_FUNCTIONS.get((int) (i.getAndIncrement() % HOSTILE_FUNCTIONS.size())), ChainState.empty()));
                }
                case "compile-flood" -> {
                    AtomicLong i = new AtomicLong(System.nanoTime());
                    yield new Chains("functions never seen before", 8, () -> mallory.startChain("target", "echo", "x",
                            ChainingFunctionSource.java(BYSTANDER_FUNCTION.source().replace("\"!\"", "\"" + i.getAndIncrement() + "\"")),
                            ChainState.empty()));
                }
                default -> throw new IllegalArgumentException("unknown attack " + name);
            };
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable c : closeables.reversed()) {
                c.close();
            }
        }
    }

    static byte[] repeat(byte[] frame, int times) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(frame.length * times);
        for (int i = 0; i < times; i++) {
            out.writeBytes(frame);
        }
        return out.toByteArray();
    }

    /** An attack, running on threads of its own from construction until {@link #close}. */
    abstract static class Attack implements AutoCloseable {
        final AtomicLong sent = new AtomicLong();
        final AtomicLong connections = new AtomicLong();
        final AtomicLong cutOff = new AtomicLong();
        final Map<Refusal, Long> refusedBefore = new ConcurrentHashMap<>();
        volatile boolean over;

        /** What the attacker did and what the node did about it, so far. */
        abstract String describe(ServerStats now);

        /** Refusals of the node since the attack began, by kind, those that happened. */
        String refusals(ServerStats now) {
            StringBuilder s = new StringBuilder();
            for (Map.Entry<Refusal, Long> e : now.refusals().entrySet()) {
                long n = e.getValue() - refusedBefore.getOrDefault(e.getKey(), 0L);
                if (n > 0) {
                    s.append(s.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%,d %s", n, e.getKey()));
                }
            }
            return s.isEmpty() ? "none refused" : s.toString();
        }

        void remember(ServerStats before) {
            refusedBefore.putAll(before.refusals());
        }

        @Override
        public void close() throws Exception {
            over = true;
        }

        static final class None extends Attack {
            @Override
            String describe(ServerStats now) {
                return "";
            }
        }
    }

    /** Attackers on raw sockets: each connects, says HELLO and sends its frames; cut off, it connects again. */
    abstract static class RawAttack extends Attack {
        final InetSocketAddress node;
        final List<Thread> threads = new ArrayList<>();
        final List<RawPeer> peers = new ArrayList<>();

        RawAttack(InetSocketAddress node) {
            this.node = node;
        }

        void start(int threadCount) {
            for (int t = 0; t < threadCount; t++) {
                threads.add(Thread.ofPlatform().daemon().name("attacker-" + t).start(this::attack));
            }
        }

        private void attack() {
            while (!over) {
                try (RawPeer p = new RawPeer("attacker", node, InetAddress.getByName(RAW_ATTACKER_HOST))) {
                    synchronized (peers) {
                        if (over) {
                            return;
                        }
                        peers.add(p);
                    }
                    connections.incrementAndGet();
                    try {
                        onConnection(p);
                    } catch (IOException e) {
                        if (!over) {
                            cutOff.incrementAndGet();
                        }
                    } finally {
                        synchronized (peers) {
                            peers.remove(p);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // refused at connect or at the handshake: again, after a moment
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }

        /** Sends on {@code p} until the node cuts it off (an {@link IOException}) or the attack is over. */
        abstract void onConnection(RawPeer p) throws IOException;

        @Override
        String describe(ServerStats now) {
            return String.format(Locale.ROOT, "%,d %s sent on %,d connections, %,d cut off; %s", sent.get(), what(),
                    connections.get(), cutOff.get(), refusals(now));
        }

        abstract String what();

        @Override
        public void close() throws Exception {
            super.close();
            synchronized (peers) {
                for (RawPeer p : peers) {
                    p.socket.close(); // unblocks a write the node no longer reads
                }
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
    }

    /** Frames sent as fast as the node reads them, never reading what it answers. */
    static final class Flood extends RawAttack {
        final String what;
        final byte[] batch;
        final int framesPerBatch;

        Flood(String what, InetSocketAddress node, byte[] frame, int framesPerBatch, int threads) {
            super(node);
            this.what = what;
            this.batch = repeat(frame, framesPerBatch);
            this.framesPerBatch = framesPerBatch;
            start(threads);
        }

        @Override
        void onConnection(RawPeer p) throws IOException {
            p.handshake();
            while (!over) {
                p.send(batch);
                sent.addAndGet(framesPerBatch);
            }
        }

        @Override
        String what() {
            return what;
        }
    }

    /** CANCELs for chains that do not exist, with made-up secrets and originators. */
    static final class ForgedCancels extends RawAttack {
        /** Distinct CANCELs, encoded once (the attacker spends its CPU on sending, not on encoding). */
        static final int DISTINCT = 20_000;
        private final byte[] batch;

        ForgedCancels(InetSocketAddress node) {
            super(node);
            Random random = new Random(26);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 0; i < DISTINCT; i++) {
                out.writeBytes(RawPeer.bytes(new CancelFrame(random.nextLong(), ChainSecret.random(),
                        "origin-" + random.nextInt(1000), TimeUnit.MINUTES.toNanos(10))));
            }
            batch = out.toByteArray();
            start(1);
        }

        @Override
        void onConnection(RawPeer p) throws IOException {
            p.handshake();
            while (!over) {
                p.send(batch);
                sent.addAndGet(DISTINCT);
            }
        }

        @Override
        String what() {
            return "forged CANCELs";
        }
    }

    /**
     * REQUESTs whose originator is an address nobody vouched for (a host of 10.0.0.0/8 at a random
     * port): were the node to dial each, it would open a connection per request. The attacker reads
     * what the node answers, so that it is not cut off for not reading.
     */
    static final class UnvouchedRequests extends RawAttack {
        static final int DISTINCT = 2_000;
        private final Random random = new Random(27);

        UnvouchedRequests(InetSocketAddress node) {
            super(node);
            start(1);
        }

        @Override
        void onConnection(RawPeer p) throws IOException {
            p.handshake();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try {
                    String frame;
                    while ((frame = p.nextFrame(60_000)) != null && !frame.equals("closed")) {
                        // discarded
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            try {
                // distinct requests, encoded once per connection (the attacker spends its CPU on sending)
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (int i = 0; i < DISTINCT; i++) {
                    NodeAddress victim = new NodeAddress("victim", "10." + random.nextInt(256) + "." + random.nextInt(256)
                            + "." + (1 + random.nextInt(254)), 1024 + random.nextInt(60_000));
                    out.writeBytes(RawPeer.bytes(p.requestFrom(victim, random.nextLong(), "echo", "x")));
                }
                byte[] batch = out.toByteArray();
                while (!over) {
                    p.send(batch);
                    sent.addAndGet(DISTINCT);
                }
            } finally {
                reader.interrupt();
            }
        }

        @Override
        String what() {
            return "unvouched REQUESTs";
        }
    }

    /** A normal client keeping {@code inFlight} chains going: each that ends starts the next. */
    static final class Chains extends Attack {
        final String what;
        final Semaphore slots;
        final Thread thread;
        final AtomicLong failed = new AtomicLong();
        final Map<String, Long> failures = new ConcurrentHashMap<>();

        Chains(String what, int inFlight, Supplier<CompletableFuture<?>> chain) {
            this.what = what;
            this.slots = new Semaphore(inFlight);
            this.thread = Thread.ofPlatform().daemon().name("attacker-chains").start(() -> {
                while (!over) {
                    try {
                        if (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    sent.incrementAndGet();
                    chain.get().whenComplete((r, e) -> {
                        if (e != null) {
                            failed.incrementAndGet();
                            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
                            failures.merge(cause.getClass().getSimpleName(), 1L, Long::sum);
                        }
                        slots.release();
                    });
                }
            });
        }

        @Override
        String describe(ServerStats now) {
            return String.format(Locale.ROOT, "%,d %s started, %,d failed %s; %s", sent.get(), what, failed.get(), failures,
                    refusals(now));
        }

        @Override
        public void close() throws Exception {
            super.close();
            thread.join(10_000);
        }
    }

    /** The bystander's latencies in one window, per operation, and the operations that failed. */
    static final class Window {
        final Map<String, long[]> latencies = new LinkedHashMap<>();
        final Map<String, Integer> counts = new LinkedHashMap<>();
        final List<String> errors = new ArrayList<>();

        Window() {
            for (String op : OPERATIONS) {
                latencies.put(op, new long[LATENCY_CAPACITY]);
                counts.put(op, 0);
            }
        }

        void time(String op, Supplier<CompletableFuture<ChainResult>> call, Object expected) {
            long t = System.nanoTime();
            try {
                Object value = call.get().get(60, TimeUnit.SECONDS).value();
                long took = System.nanoTime() - t;
                if (!expected.equals(value)) {
                    errors.add(op + ": expected " + expected + ", got " + value);
                    return;
                }
                int n = counts.get(op);
                if (n < LATENCY_CAPACITY) {
                    latencies.get(op)[n] = took;
                    counts.put(op, n + 1);
                }
            } catch (Exception e) {
                if (errors.size() < 20) {
                    errors.add(op + ": " + e);
                }
            }
        }

        /** The {@code q}-quantile of {@code op}'s latencies, in microseconds; NaN if none. */
        double quantileMicros(String op, double q) {
            int n = counts.get(op);
            if (n == 0) {
                return Double.NaN;
            }
            long[] sorted = Arrays.copyOf(latencies.get(op), n);
            Arrays.sort(sorted);
            return sorted[Math.min(n - 1, (int) Math.ceil(q * n) - 1 < 0 ? 0 : (int) Math.ceil(q * n) - 1)] / 1e3;
        }

        String summary() {
            StringBuilder s = new StringBuilder();
            for (String op : OPERATIONS) {
                s.append(String.format(Locale.ROOT, "%s p50 %.0f p99 %.0f µs (%d)  ", op, quantileMicros(op, 0.5),
                        quantileMicros(op, 0.99), counts.get(op)));
            }
            return s + (errors.isEmpty() ? "" : errors.size() + " errors");
        }
    }

    /** Every window of a run, and the table. */
    static final class Report {
        final Options options;
        /** attack → round → window. */
        final Map<String, Map<Integer, Window>> windows = new LinkedHashMap<>();
        final Map<String, String> attackers = new LinkedHashMap<>();

        Report(Options options) {
            this.options = options;
        }

        void add(String attack, int round, Window w, String attacker) {
            windows.computeIfAbsent(attack, a -> new LinkedHashMap<>()).put(round, w);
            attackers.put(attack, attacker);
        }

        List<String> errors() {
            List<String> all = new ArrayList<>();
            windows.forEach((attack, rounds) -> rounds.forEach((round, w) -> w.errors.forEach(e -> all.add(attack + " round " + round + ": " + e))));
            return all;
        }

        /** The median over the rounds of {@code f(window of attack, window of none)}. */
        double median(String attack, String op, boolean ratio, double q) {
            List<Double> values = new ArrayList<>();
            windows.getOrDefault(attack, Map.of()).forEach((round, w) -> {
                double v = w.quantileMicros(op, q);
                if (ratio) {
                    Window base = windows.getOrDefault("none", Map.of()).get(round);
                    v = base == null ? Double.NaN : v / base.quantileMicros(op, q);
                }
                values.add(v);
            });
            if (values.isEmpty()) {
                return Double.NaN;
            }
            values.sort(null);
            return values.get(values.size() / 2);
        }

        String markdown() {
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "Bystander latency, µs (median of %d rounds of %.1f s; × the same round's unattacked figure)%n%n",
                    options.rounds, options.seconds));
            s.append("| attack |");
            for (String op : OPERATIONS) {
                s.append(" ").append(op).append(" p50 | ").append(op).append(" p99 |");
            }
            s.append("\n| --- |").append(" ---: | ---: |".repeat(OPERATIONS.size())).append("\n");
            for (String attack : windows.keySet()) {
                s.append("| ").append(attack).append(" |");
                for (String op : OPERATIONS) {
                    for (double q : new double[] {0.5, 0.99}) {
                        double v = median(attack, op, false, q);
                        s.append(attack.equals("none") ? String.format(Locale.ROOT, " %.0f |", v)
                                : String.format(Locale.ROOT, " %.0f (%.2f×) |", v, median(attack, op, true, q)));
                    }
                }
                s.append("\n");
            }
            s.append("\nWhat each attacker did in its last round, and what the node refused meanwhile:\n\n");
            attackers.forEach((attack, what) -> {
                if (!what.isEmpty()) {
                    s.append("- ").append(attack).append(": ").append(what).append("\n");
                }
            });
            List<String> errors = errors();
            if (!errors.isEmpty()) {
                s.append("\nBystander operations that failed (").append(errors.size()).append("):\n");
                errors.forEach(e -> s.append("- ").append(e).append("\n"));
            }
            return s.toString();
        }

        void writeCsv(Path file) throws IOException {
            List<String> rows = new ArrayList<>();
            rows.add("build,round,attack,operation,ops,p50_us,p99_us");
            windows.forEach((attack, rounds) -> rounds.forEach((round, w) -> {
                for (String op : OPERATIONS) {
                    rows.add(String.format(Locale.ROOT, "%s,%d,%s,%s,%d,%.1f,%.1f", options.label, round, attack, op,
                            w.counts.get(op), w.quantileMicros(op, 0.5), w.quantileMicros(op, 0.99)));
                }
            }));
            Files.write(file, rows);
        }
    }

    /** The command line. */
    static final class Options {
        List<String> attacks = ATTACKS;
        int rounds = 3;
        double seconds = 3;
        double warmupSeconds = 1;
        double initialWarmupSeconds = 5;
        Path csv;
        String label = "run";
        boolean quiet;
        boolean help;

        static Options parse(String... args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--help", "-h" -> o.help = true;
                    case "--quiet" -> o.quiet = true;
                    case "--attacks" -> {
                        List<String> chosen = new ArrayList<>(List.of("none"));
                        for (String name : value(args, ++i, a).split(",")) {
                            if (!ATTACKS.contains(name)) {
                                throw new IllegalArgumentException("unknown attack '" + name + "'");
                            }
                            if (!chosen.contains(name)) {
                                chosen.add(name);
                            }
                        }
                        o.attacks = chosen;
                    }
                    case "--rounds" -> o.rounds = Integer.parseInt(value(args, ++i, a));
                    case "--seconds" -> o.seconds = Double.parseDouble(value(args, ++i, a));
                    case "--warmup" -> o.warmupSeconds = Double.parseDouble(value(args, ++i, a));
                    case "--initial-warmup" -> o.initialWarmupSeconds = Double.parseDouble(value(args, ++i, a));
                    case "--csv" -> o.csv = Path.of(value(args, ++i, a));
                    case "--label" -> o.label = value(args, ++i, a);
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (o.rounds < 1 || o.seconds <= 0 || o.warmupSeconds < 0) {
                throw new IllegalArgumentException("--rounds must be at least 1, --seconds above 0, --warmup at least 0");
            }
            return o;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }
}
