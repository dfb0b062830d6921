package io.rpcc.benchmarks;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.PingFrame;
import io.rpcc.core.testing.RawPeer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
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
 * The attacker of {@link UnderAttackBenchmark}: a process of its own (standing in for another
 * machine, at the lowest CPU priority where {@code nice} exists, so that what the benchmark measures
 * is what the node's defences cost, not the attacker's CPU on the same cores), running one attack on
 * the node under attack until its standard input closes, then printing what it did as its last line
 * ({@value #REPORT} and the counts).
 *
 * <p>The attacks: raw sockets speaking rpcc's protocol (connecting from {@value #RAW_HOST}, an address
 * nothing vouches for) that flood PINGs or junk frames without reading, made-up CANCELs, or REQUESTs
 * naming addresses nobody vouches for; and a normal client (listening on, so connecting from,
 * {@value #CLIENT_HOST}) that keeps chains going to a dead next hop, chains with Java functions that
 * run until killed or allocate past any heap, or chains each with a function the node never saw.
 * Each raw attacker connects again whenever the node cuts it off.
 */
final class Attacker {
    /** Attacks in the report's order. */
    static final List<String> ATTACKS = List.of("ping-flood", "junk-frames", "forged-cancels", "unvouched-requests",
            "dead-next-hops", "hostile-java", "compile-flood");
    /** Where the raw attackers connect from: a loopback address other than the nodes' 127.0.0.1, another host to the node. */
    static final String RAW_HOST = "127.0.0.2";
    /** Where the attacking client listens, and so connects from. */
    static final String CLIENT_HOST = "127.0.0.3";
    /** The first word of the report line: {@code REPORT sent connections cut-off failed | text}. */
    static final String REPORT = "REPORT";
    /** The line the attacker prints once its attack runs. */
    static final String STARTED = "STARTED";

    private Attacker() {
    }

    /**
     * {@code Attacker <attack> <target host:port> <dead host:port>}: runs {@code attack} on the node
     * at {@code target} ({@code dead}: a next hop that accepts connections and never answers) until
     * standard input closes.
     */
    public static void main(String[] args) throws Exception {
        StaticNameResolver names = new StaticNameResolver();
        names.register("target", address(args[1]));
        names.register("dead", address(args[2]));
        try (RpccClient mallory = RpccClient.builder().name("mallory").listen(CLIENT_HOST, 0).resolver(names)
                .timeout(Duration.ofSeconds(60)).build().start()) {
            Attack attack = start(args[0], address(args[1]), mallory);
            System.out.println(STARTED);
            System.out.flush();
            InputStream in = System.in;
            while (in.read() >= 0) {
                // until the benchmark closes our standard input
            }
            attack.close();
            System.out.printf(Locale.ROOT, "%s %d %d %d %d | %s%n", REPORT, attack.sent.get(), attack.connections.get(),
                    attack.cutOff.get(), attack.failed.get(), attack.describe());
            System.out.flush();
        }
        System.exit(0);
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    static Attack start(String name, InetSocketAddress target, RpccClient mallory) {
        return switch (name) {
            case "ping-flood" -> new Flood("PINGs", target, repeat(RawPeer.bytes(new PingFrame(false, 42)), 4096), 4096, 2);
            case "junk-frames" -> new Flood("junk frames", target, repeat(JUNK, 8192), 8192, 2);
            case "forged-cancels" -> new Flood("forged CANCELs", target, forgedCancels(), FORGED_CANCELS, 1);
            case "unvouched-requests" -> new UnvouchedRequests(target);
            case "dead-next-hops" -> new Chains("chains to a dead next hop", 32, () -> mallory.startChain(ChainCall.along(
                    StaticRoute.of(StaticRoute.hop("target", "echo"), StaticRoute.hop("dead", "echo")), "x")
                    .timeout(Duration.ofSeconds(60))));
            case "hostile-java" -> {
                AtomicLong i = new AtomicLong();
                yield new Chains("hostile Java functions", 4, () -> mallory.startChain("target", "echo", "x",
                        HOSTILE_FUNCTIONS.get((int) (i.getAndIncrement() % HOSTILE_FUNCTIONS.size())), ChainState.empty()));
            }
            case "compile-flood" -> {
                AtomicLong i = new AtomicLong(System.nanoTime());
                yield new Chains("functions never seen before", 8, () -> mallory.startChain("target", "echo", "x",
                        ChainingFunctionSource.java(UnderAttackBenchmark.BYSTANDER_FUNCTION.source()
                                .replace("\"!\"", "\"" + i.getAndIncrement() + "\"")), ChainState.empty()));
            }
            default -> throw new IllegalArgumentException("unknown attack " + name);
        };
    }

    /** A well-framed frame of a type no version of rpcc has: malformed. */
    static final byte[] JUNK = {0, 0, 0, 2, FrameType.PROTOCOL_VERSION, 99};

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
        final AtomicLong failed = new AtomicLong();
        volatile boolean over;

        /** What the attacker did so far. */
        abstract String describe();

        @Override
        public void close() throws Exception {
            over = true;
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
                try (RawPeer p = new RawPeer("attacker", node, InetAddress.getByName(RAW_HOST))) {
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
        String describe() {
            return String.format(Locale.ROOT, "%,d %s sent on %,d connections, %,d cut off", sent.get(), what(),
                    connections.get(), cutOff.get());
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

        /** {@code threads} attackers sending {@code batch}, {@code framesPerBatch} frames of {@code what}, over and over. */
        Flood(String what, InetSocketAddress node, byte[] batch, int framesPerBatch, int threads) {
            super(node);
            this.what = what;
            this.batch = batch;
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

    /** Distinct CANCELs in one batch, encoded once (the attacker spends its CPU on sending, not on encoding). */
    static final int FORGED_CANCELS = 20_000;

    /** CANCELs for chains that do not exist, with made-up secrets and originators, one after another. */
    static byte[] forgedCancels() {
        Random random = new Random(26);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < FORGED_CANCELS; i++) {
            out.writeBytes(RawPeer.bytes(new CancelFrame(random.nextLong(), ChainSecret.random(),
                    "origin-" + random.nextInt(1000), TimeUnit.MINUTES.toNanos(10))));
        }
        return out.toByteArray();
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
        String describe() {
            return String.format(Locale.ROOT, "%,d %s started, %,d failed %s", sent.get(), what, failed.get(), failures);
        }

        @Override
        public void close() throws Exception {
            super.close();
            thread.join(10_000);
        }
    }

}
